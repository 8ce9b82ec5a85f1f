package dev.memoryd.daemon.console;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One request as the pages see it: the method, the path, the query and (for a POST) the form
 * fields, and the session's CSRF token to put in the forms a page renders.
 */
final class Req {
    /** A form larger than this is refused: notes are short, and nothing else is posted. */
    static final int MAX_FORM_BYTES = 64 * 1024;

    final String method;
    final String path;
    final Map<String, String> query;
    final Map<String, String> form;
    final String csrf;

    Req(String method, String path, Map<String, String> query, Map<String, String> form, String csrf) {
        this.method = method;
        this.path = path;
        this.query = query;
        this.form = form;
        this.csrf = csrf;
    }

    /** A query parameter, or {@code dflt} when absent or blank. */
    String q(String name, String dflt) {
        String v = query.get(name);
        return v == null || v.isBlank() ? dflt : v;
    }

    /** A form field, or null when absent or blank. */
    String f(String name) {
        String v = form.get(name);
        return v == null || v.isBlank() ? null : v;
    }

    /** The hidden field every state-changing form carries. */
    String csrfField() {
        return "<input type=\"hidden\" name=\"csrf\" value=\"" + Html.attr(csrf) + "\">";
    }

    static Map<String, String> parseQuery(String raw) {
        Map<String, String> m = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return m;
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String k = eq < 0 ? pair : pair.substring(0, eq);
            String v = eq < 0 ? "" : pair.substring(eq + 1);
            try {
                m.putIfAbsent(
                        URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                // a malformed %-escape: the field is left out, and the page reports it as missing
            }
        }
        return m;
    }

    /** The body of {@code ex} as form fields; null when it is larger than {@link #MAX_FORM_BYTES}. */
    static Map<String, String> readForm(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            byte[] b = in.readNBytes(MAX_FORM_BYTES + 1);
            if (b.length > MAX_FORM_BYTES) {
                return null;
            }
            return parseQuery(new String(b, StandardCharsets.UTF_8));
        }
    }
}
