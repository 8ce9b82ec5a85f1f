package dev.memoryd.daemon.console;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** What one request answers: a status, a content type, a body and extra headers. */
record Response(int status, String contentType, byte[] body, Map<String, String> headers) {
    static final String HTML = "text/html; charset=utf-8";

    static Response html(int status, String page) {
        return new Response(status, HTML, page.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    static Response ok(String page) {
        return html(200, page);
    }

    /** 303 See Other to {@code location} (after a POST, so reloading does not repeat it). */
    static Response redirect(String location) {
        return new Response(303, HTML, new byte[0], Map.of("Location", location));
    }

    Response withHeader(String name, String value) {
        Map<String, String> h = new LinkedHashMap<>(headers);
        h.put(name, value);
        return new Response(status, contentType, body, h);
    }
}
