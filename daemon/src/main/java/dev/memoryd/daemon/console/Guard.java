package dev.memoryd.daemon.console;

import com.sun.net.httpserver.Headers;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The checks every request passes before a page sees it, each refusal a value with its status:
 * <ul>
 *   <li>{@code Host} names this console ({@code 127.0.0.1:PORT} or {@code localhost:PORT}, or the
 *   explicit bind address): a page of another site that a DNS rebinding points at 127.0.0.1 still
 *   sends its own host name, and is refused;</li>
 *   <li>the session cookie names a session opened by the login URL;</li>
 *   <li>a state-changing request (a POST) carries an {@code Origin} of this console and the
 *   session's CSRF token in its {@code csrf} field.</li>
 * </ul>
 * Which method a path takes is the routes' business ({@link ConsoleServer}).
 */
final class Guard {
    /** Why a request is refused. */
    record Refusal(int status, String message) {}

    private final Set<String> hosts;
    private final Set<String> origins;
    private final Sessions sessions;

    Guard(Set<String> hosts, Sessions sessions) {
        this.hosts = hosts;
        this.origins = hosts.stream().map(h -> "http://" + h).collect(java.util.stream.Collectors.toUnmodifiableSet());
        this.sessions = sessions;
    }

    /** The host names (with the port) this console answers to. */
    Set<String> hosts() {
        return hosts;
    }

    Optional<Refusal> host(Headers h) {
        String host = h.getFirst("Host");
        if (host == null || !hosts.contains(host.toLowerCase(java.util.Locale.ROOT))) {
            return Optional.of(new Refusal(
                    403,
                    "refused: the Host header (" + host + ") is not this console's address " + hosts
                            + "; open the console by the address it printed"));
        }
        return Optional.empty();
    }

    /** The CSRF token of the request's session, or a refusal when it has none of ours. */
    SessionCheck session(Headers h) {
        String id = sessions.fromCookieHeader(String.join("; ", h.getOrDefault("Cookie", java.util.List.of())));
        Optional<String> csrf = sessions.csrf(id);
        if (csrf.isEmpty()) {
            return new SessionCheck(
                    null,
                    new Refusal(
                            401,
                            id == null
                                    ? "not logged in: open the login URL that 'memoryd console' printed (a fresh one is in .memoryd/console.token)"
                                    : "this session is not known (the console restarted?): open a fresh login URL"));
        }
        return new SessionCheck(csrf.get(), null);
    }

    /** A session's CSRF token, or why there is none. */
    record SessionCheck(String csrf, Refusal refusal) {}

    /** The checks of a state-changing request: its origin and its CSRF field. */
    Optional<Refusal> change(Headers h, Map<String, String> form, String csrf) {
        String origin = h.getFirst("Origin");
        if (origin == null || !origins.contains(origin.toLowerCase(java.util.Locale.ROOT))) {
            return Optional.of(new Refusal(
                    403,
                    "refused: a change must come from this console's own pages (Origin " + origin + " is not one of "
                            + origins + ")"));
        }
        if (form == null) {
            return Optional.of(new Refusal(413, "refused: the form is larger than " + Req.MAX_FORM_BYTES + " bytes"));
        }
        if (!Secrets.same(csrf, form.get("csrf"))) {
            return Optional.of(new Refusal(
                    403, "refused: the form's CSRF token is missing or wrong; reload the page and try again"));
        }
        return Optional.empty();
    }
}
