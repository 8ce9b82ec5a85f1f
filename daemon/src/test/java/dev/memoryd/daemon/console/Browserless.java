package dev.memoryd.daemon.console;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** A plain HTTP client for the console, as a browser would speak to it: a cookie, forms with their CSRF field. */
final class Browserless {
    private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");

    final HttpClient http =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    final ConsoleRoot root;
    String cookie;

    Browserless(ConsoleRoot root) {
        this.root = root;
    }

    /** Logs in with the token in the root's token file; the login response. */
    HttpResponse<String> login() throws Exception {
        String token =
                Files.readString(root.dir.resolve(".memoryd/console.token")).strip();
        HttpResponse<String> r = get("/login?token=" + token);
        r.headers().firstValue("Set-Cookie").ifPresent(c -> cookie = c.substring(0, c.indexOf(';')));
        return r;
    }

    HttpResponse<String> get(String path) throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(root.base() + path)).GET();
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The CSRF token in the forms of the page at {@code path}. */
    String csrf(String path) throws Exception {
        Matcher m = CSRF.matcher(get(path).body());
        if (!m.find()) {
            throw new AssertionError(path + " has no form with a CSRF field");
        }
        return m.group(1);
    }

    /** A form POST with this console's Origin (or {@code origin}, or none when null). */
    HttpResponse<String> post(String path, Map<String, String> form, String origin) throws Exception {
        String body = form.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(root.base() + path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        if (origin != null) {
            b.header("Origin", origin);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, Map<String, String> form) throws Exception {
        return post(path, form, root.base());
    }

    static Map<String, String> form(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}
