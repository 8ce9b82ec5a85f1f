package dev.memoryd.daemon.console;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The console's HTTP server (the JDK's {@code com.sun.net.httpserver}: no dependency to add):
 * routes each request through the {@link Guard} to its {@link Page}, adds the security headers to
 * every response, and renders a page's unanswered daemon call as what to do about it. It holds
 * no memory state: every page asks the daemon over its socket ({@link Rpc}).
 */
public final class ConsoleServer implements AutoCloseable {
    /**
     * How to run: the root and its socket, the address to bind ({@code bindExplicit}: the user named
     * it, so a non-loopback address is allowed), the port (0: any free one), who decides.
     */
    public record Options(Path root, Path socket, InetAddress bind, boolean bindExplicit, int port, String actor) {}

    /** The headers every response carries: no script but our own files, no framing, no sniffing. */
    static final Map<String, String> SECURITY_HEADERS = Map.of(
            "Content-Security-Policy",
                    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self';"
                            + " form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'",
            "X-Frame-Options", "DENY",
            "X-Content-Type-Options", "nosniff",
            // same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on a form
            // POST, and the guard could no longer tell the console's own forms from another site's.
            "Referrer-Policy", "same-origin",
            "Cache-Control", "no-store");

    private final HttpServer http;
    private final ExecutorService workers;
    private final LoginToken token;
    private final Sessions sessions;
    private final Guard guard;
    private final Routes routes;
    private final LedgerStatus ledger;
    private final ConsoleLock one;
    private final String base;
    private final Consumer<String> onLoginUrl;

    private ConsoleServer(
            HttpServer http,
            ExecutorService workers,
            LoginToken token,
            Sessions sessions,
            Guard guard,
            Routes routes,
            String base,
            Consumer<String> onLoginUrl,
            LedgerStatus ledger,
            ConsoleLock one) {
        this.ledger = ledger;
        this.one = one;
        this.http = http;
        this.workers = workers;
        this.token = token;
        this.sessions = sessions;
        this.guard = guard;
        this.routes = routes;
        this.base = base;
        this.onLoginUrl = onLoginUrl;
    }

    /**
     * Binds, writes a fresh login token to {@code <root>/.memoryd/console.token} and starts serving.
     * {@code onLoginUrl} hears each login URL: the first now, and the next each time one is used up.
     *
     * @throws IllegalArgumentException when the bind address is not a loopback one and was not named explicitly
     * @throws ConsoleLock.Held when another console serves the root (its URL in the message)
     */
    public static ConsoleServer start(Options o, Consumer<String> onLoginUrl) throws IOException {
        if (!o.bind().isLoopbackAddress() && !o.bindExplicit()) {
            throw new IllegalArgumentException("refusing to serve the console on "
                    + o.bind().getHostAddress() + ": only 127.0.0.1 unless --bind names the address");
        }
        // Headers and body go out as two writes: with Nagle's algorithm on, the body waits for the
        // client's delayed ACK of the headers, about 40 ms on every response. Read once, when the JDK's
        // server configuration is first loaded.
        System.setProperty("sun.net.httpserver.nodelay", System.getProperty("sun.net.httpserver.nodelay", "true"));
        ConsoleLock one = ConsoleLock.acquire(o.root());
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(o.bind(), o.port()), 16);
        } catch (IOException e) {
            one.close();
            throw e;
        }
        int port = http.getAddress().getPort();
        Set<String> hosts = new LinkedHashSet<>();
        hosts.add("127.0.0.1:" + port);
        hosts.add("localhost:" + port);
        String bindHost = hostLiteral(o.bind());
        hosts.add(bindHost.toLowerCase(Locale.ROOT) + ":" + port);
        String base = "http://" + (o.bind().isLoopbackAddress() ? "127.0.0.1" : bindHost) + ":" + port;
        one.record(base);
        LoginToken token = LoginToken.create(o.root().resolve(".memoryd").resolve("console.token"));
        Sessions sessions = new Sessions(port);
        Rpc rpc = new Rpc(o.root(), o.socket());
        LedgerStatus ledger = new LedgerStatus(rpc, java.time.Clock.systemUTC());
        Routes routes = Routes.all(rpc, new Layout(o.root().toString(), o.actor()), ledger);
        AtomicInteger n = new AtomicInteger();
        ExecutorService workers = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "memoryd-console-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        ConsoleServer s = new ConsoleServer(
                http,
                workers,
                token,
                sessions,
                new Guard(Set.copyOf(hosts), sessions),
                routes,
                base,
                onLoginUrl,
                ledger,
                one);
        http.createContext("/", s::handle);
        http.setExecutor(workers);
        http.start();
        ledger.start();
        onLoginUrl.accept(s.loginUrl());
        return s;
    }

    private static String hostLiteral(InetAddress a) {
        String h = a.getHostAddress();
        return h.contains(":") ? "[" + h + "]" : h;
    }

    public int port() {
        return http.getAddress().getPort();
    }

    /** The URL that logs a browser in, with the current one-time token. */
    public String loginUrl() {
        return base + "/login?token=" + token.current();
    }

    /** The console's address, e.g. {@code http://127.0.0.1:7420}. */
    public String base() {
        return base;
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            Response r;
            try {
                r = respond(ex);
            } catch (Rpc.Unanswered u) {
                r = routes.unanswered(u);
            }
            send(ex, r);
        }
    }

    private Response respond(HttpExchange ex) throws IOException {
        Headers h = ex.getRequestHeaders();
        Optional<Guard.Refusal> foreign = guard.host(h);
        if (foreign.isPresent()) {
            return refused(foreign.get());
        }
        String method = ex.getRequestMethod().toUpperCase(Locale.ROOT);
        String path = ex.getRequestURI().getRawPath();
        Map<String, String> query = Req.parseQuery(ex.getRequestURI().getRawQuery());
        if (path.equals("/login")) {
            return login(method, query.get("token"));
        }
        Guard.SessionCheck session = guard.session(h);
        if (session.refusal() != null) {
            return refused(session.refusal());
        }
        boolean read = method.equals("GET") || method.equals("HEAD");
        Page page = read ? routes.get(path) : method.equals("POST") ? routes.post(path) : null;
        if (page == null) {
            if (routes.get(path) == null && routes.post(path) == null) {
                return Response.html(404, Layout.bare("Not found", "no page at " + path));
            }
            String allow = routes.get(path) != null ? "GET" : "POST";
            return Response.html(
                            405,
                            Layout.bare(
                                    "Method not allowed",
                                    path + " takes " + allow + " only"
                                            + (allow.equals("POST")
                                                    ? ": changes are made by the console's forms, never by a link"
                                                    : "")))
                    .withHeader("Allow", allow);
        }
        Map<String, String> form = Map.of();
        if (!read) {
            form = Req.readForm(ex);
            Optional<Guard.Refusal> bad = guard.change(h, form, session.csrf());
            if (bad.isPresent()) {
                return refused(bad.get());
            }
        }
        return page.handle(new Req(method, path, query, form, session.csrf()));
    }

    private Response login(String method, String presented) throws IOException {
        if (!method.equals("GET")) {
            return Response.html(405, Layout.bare("Method not allowed", "/login takes GET only"))
                    .withHeader("Allow", "GET");
        }
        if (!token.redeem(presented)) {
            return Response.html(
                    403,
                    Layout.bare(
                            "Login refused",
                            "this login URL is wrong or already used; run"
                                    + " 'memoryd console' again, or use the URL it printed last (the token is in "
                                    + token.file() + ")"));
        }
        onLoginUrl.accept(loginUrl());
        return Response.redirect("/").withHeader("Set-Cookie", sessions.setCookie(sessions.open()));
    }

    private static Response refused(Guard.Refusal r) {
        return Response.html(r.status(), Layout.bare("Refused", r.message()));
    }

    private static void send(HttpExchange ex, Response r) throws IOException {
        Headers out = ex.getResponseHeaders();
        SECURITY_HEADERS.forEach(out::set);
        out.set("Content-Type", r.contentType());
        r.headers().forEach(out::set);
        boolean head = ex.getRequestMethod().equalsIgnoreCase("HEAD");
        if (head || r.body().length == 0) {
            ex.sendResponseHeaders(r.status(), -1);
            return;
        }
        ex.sendResponseHeaders(r.status(), r.body().length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(r.body());
        }
    }

    /** Stops serving and removes the token file. */
    @Override
    public void close() throws IOException {
        http.stop(0);
        ledger.close();
        workers.shutdownNow();
        token.delete();
        one.close();
    }
}
