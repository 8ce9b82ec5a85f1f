package dev.memoryd.daemon.console;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The browsers logged in to this console: a session id (the cookie's value) and the CSRF token
 * every form of that session carries. Kept in memory only: a restarted console asks for a new
 * login. Thread-safe.
 */
final class Sessions {
    private final Map<String, String> csrfBySession = new ConcurrentHashMap<>();
    private final String cookieName;

    /** The cookie is named after the port, so consoles of two roots on one host keep their own. */
    Sessions(int port) {
        this.cookieName = "memoryd-console-" + port;
    }

    String cookieName() {
        return cookieName;
    }

    /** A new session; its id. */
    String open() {
        String id = Secrets.fresh();
        csrfBySession.put(id, Secrets.fresh());
        return id;
    }

    /** The CSRF token of session {@code id}, if it is one of ours. */
    Optional<String> csrf(String id) {
        return id == null ? Optional.empty() : Optional.ofNullable(csrfBySession.get(id));
    }

    /** The {@code Set-Cookie} value that keeps session {@code id}: script cannot read it, other sites cannot send it. */
    String setCookie(String id) {
        return cookieName + "=" + id + "; Path=/; HttpOnly; SameSite=Strict";
    }

    /** The session id in a {@code Cookie} header, or null. */
    String fromCookieHeader(String header) {
        if (header == null) {
            return null;
        }
        for (String part : header.split(";")) {
            String p = part.strip();
            if (p.startsWith(cookieName + "=")) {
                return p.substring(cookieName.length() + 1);
            }
        }
        return null;
    }
}
