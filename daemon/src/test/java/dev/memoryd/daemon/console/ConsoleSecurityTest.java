package dev.memoryd.daemon.console;

import static dev.memoryd.daemon.console.Browserless.form;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's security model over plain HTTP, against a real console in front of a real
 * daemon: each refusal, and that a refused request changes nothing (the drift item it tried to
 * resolve stays open).
 */
@Timeout(120)
class ConsoleSecurityTest {
    @TempDir
    static Path tmp;

    static ConsoleRoot root;
    static String driftId;

    @BeforeAll
    static void up() throws Exception {
        root = new ConsoleRoot(tmp).serve();
        root.humanEdit(ConsoleRoot.CRITIC, "## Role\n", "## Job\n");
        driftId = root.driftIds().get(0);
    }

    @AfterAll
    static void down() throws Exception {
        root.close();
    }

    private static Browserless loggedIn() throws Exception {
        Browserless b = new Browserless(root);
        assertEquals(303, b.login().statusCode());
        return b;
    }

    private static void assertStillOpen() throws Exception {
        assertEquals(List.of(driftId), root.driftIds(), "a refused request changed the drift queue");
    }

    @Test
    void theLoginUrl_setsAnHttpOnlySameSiteStrictCookie_redirectsHome_andWorksOnce() throws Exception {
        Path file = root.dir.resolve(".memoryd/console.token");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        String token = Files.readString(file).strip();
        Browserless b = new Browserless(root);
        HttpResponse<String> r = b.get("/login?token=" + token);
        assertEquals(303, r.statusCode());
        assertEquals("/", r.headers().firstValue("Location").orElse(""));
        String cookie = r.headers().firstValue("Set-Cookie").orElseThrow();
        assertTrue(cookie.startsWith("memoryd-console-" + root.console.port() + "="), cookie);
        assertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie);

        HttpResponse<String> again = new Browserless(root).get("/login?token=" + token);
        assertEquals(403, again.statusCode(), "a login URL opens one session only");
        assertTrue(again.headers().firstValue("Set-Cookie").isEmpty());
        String fresh = Files.readString(file).strip();
        assertNotEquals(token, fresh, "the used token is replaced in the file");
        assertTrue(
                root.loginUrls.get(root.loginUrls.size() - 1).endsWith("/login?token=" + fresh),
                "the console announces the next login URL: " + root.loginUrls);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void aWrongToken_isRefused_andOpensNoSession() throws Exception {
        Browserless b = new Browserless(root);
        HttpResponse<String> r = b.get("/login?token=not-the-token");
        assertEquals(403, r.statusCode());
        assertTrue(r.headers().firstValue("Set-Cookie").isEmpty());
        assertEquals(403, b.get("/login").statusCode(), "no token at all");
    }

    @Test
    void withoutTheCookie_everyPage_andTheStylesheet_areRefused() throws Exception {
        Browserless b = new Browserless(root);
        for (String path : List.of(
                "/",
                "/drift",
                "/drift/item?id=" + driftId,
                "/proposals",
                "/search?q=critic",
                "/ledger",
                "/file?path=" + ConsoleRoot.CRITIC,
                "/console.css")) {
            HttpResponse<String> r = b.get(path);
            assertEquals(401, r.statusCode(), path);
            assertTrue(r.body().contains("login URL"), r.body());
            assertFalse(r.body().contains("Protector"), "a refused page shows no memory");
        }
        b.cookie = "memoryd-console-" + root.console.port() + "=forged";
        assertEquals(401, b.get("/").statusCode(), "a cookie the console did not issue");
        assertEquals(
                401,
                b.post("/drift/resolve", form("id", driftId, "resolution", "dismiss", "csrf", "x"))
                        .statusCode());
        assertStillOpen();
    }

    @Test
    void aGetOnAPostRoute_isMethodNotAllowed_andChangesNothing() throws Exception {
        Browserless b = loggedIn();
        HttpResponse<String> r = b.get(
                "/drift/resolve?id=" + driftId + "&resolution=dismiss&csrf=" + b.csrf("/drift/item?id=" + driftId));
        assertEquals(405, r.statusCode());
        assertEquals("POST", r.headers().firstValue("Allow").orElse(""));
        assertEquals(
                405,
                b.post("/drift", form("csrf", b.csrf("/drift/item?id=" + driftId)))
                        .statusCode(),
                "a POST on a page");
        assertStillOpen();
    }

    @Test
    void aPost_withoutOrWithTheWrongCsrfToken_isRefused() throws Exception {
        Browserless b = loggedIn();
        HttpResponse<String> none = b.post("/drift/resolve", form("id", driftId, "resolution", "dismiss"));
        assertEquals(403, none.statusCode());
        assertTrue(none.body().contains("CSRF"), none.body());
        assertEquals(
                403,
                b.post("/drift/resolve", form("id", driftId, "resolution", "dismiss", "csrf", "guessed"))
                        .statusCode());
        String otherSessions = loggedIn().csrf("/drift/item?id=" + driftId);
        assertEquals(
                403,
                b.post("/drift/resolve", form("id", driftId, "resolution", "dismiss", "csrf", otherSessions))
                        .statusCode(),
                "another session's token");
        assertStillOpen();
    }

    @Test
    void aPost_fromAForeignOrigin_orWithNoOrigin_isRefused() throws Exception {
        Browserless b = loggedIn();
        String csrf = b.csrf("/drift/item?id=" + driftId);
        for (String origin : new String[] {"http://evil.example", "http://127.0.0.1:1", "null"}) {
            HttpResponse<String> r =
                    b.post("/drift/resolve", form("id", driftId, "resolution", "dismiss", "csrf", csrf), origin);
            assertEquals(403, r.statusCode(), origin);
            assertTrue(r.body().contains("Origin"), r.body());
        }
        assertEquals(
                403,
                b.post("/drift/resolve", form("id", driftId, "resolution", "dismiss", "csrf", csrf), null)
                        .statusCode());
        assertStillOpen();
    }

    @Test
    void aForeignHostHeader_isRefused_evenWithAValidSession() throws Exception {
        Browserless b = loggedIn();
        for (String host : List.of("evil.example:" + root.console.port(), "127.0.0.1:1", "evil.example")) {
            String reply = raw(
                    "GET / HTTP/1.1\r\nHost: " + host + "\r\nCookie: " + b.cookie + "\r\nConnection: close\r\n\r\n");
            assertTrue(reply.startsWith("HTTP/1.1 403"), host + ": " + reply);
            assertFalse(reply.contains("Protector"), reply);
        }
        String token =
                Files.readString(root.dir.resolve(".memoryd/console.token")).strip();
        assertTrue(
                raw("GET /login?token=" + token + " HTTP/1.1\r\nHost: rebound.example:" + root.console.port()
                                + "\r\nConnection: close\r\n\r\n")
                        .startsWith("HTTP/1.1 403"),
                "a rebound name cannot log in");
        assertEquals(
                token,
                Files.readString(root.dir.resolve(".memoryd/console.token")).strip(),
                "and did not use the token up");
        assertTrue(
                raw("GET / HTTP/1.1\r\nHost: localhost:" + root.console.port() + "\r\nCookie: " + b.cookie
                                + "\r\nConnection: close\r\n\r\n")
                        .startsWith("HTTP/1.1 200"),
                "localhost:PORT is this console");
    }

    @Test
    void everyResponse_carriesTheContentSecurityPolicy_noFraming_andNoSniffing() throws Exception {
        Browserless b = loggedIn();
        for (HttpResponse<String> r :
                List.of(b.get("/"), b.get("/console.css"), new Browserless(root).get("/"), b.get("/nope"))) {
            String csp = r.headers().firstValue("Content-Security-Policy").orElse("");
            assertTrue(
                    csp.contains("default-src 'self'")
                            && csp.contains("frame-ancestors 'none'")
                            && !csp.contains("unsafe-inline"),
                    csp);
            assertEquals("DENY", r.headers().firstValue("X-Frame-Options").orElse(""));
            assertEquals(
                    "nosniff", r.headers().firstValue("X-Content-Type-Options").orElse(""));
        }
        assertEquals(404, b.get("/nope").statusCode());
    }

    @Test
    void anAgentsScript_isShownAsEscapedText_onEveryPageThatShowsIt() throws Exception {
        String script = "<script>document.title='owned'</script><img src=x onerror=alert(1)>";
        root.ok(
                "write",
                "{\"rationale\":\"because " + script.replace("'", "\\u0027")
                        + "\",\"actor\":\"agent <b>x</b>\",\"ops\":["
                        + "{\"op\":\"append_item\",\"path\":\"" + ConsoleRoot.YOUNG
                        + "\",\"section\":\"Needs\",\"item\":\"scriptword "
                        + script.replace("'", "\\u0027") + "\"}]}");
        Browserless b = loggedIn();
        for (String path : List.of(
                "/file?path=" + ConsoleRoot.YOUNG,
                "/file/section?path=" + ConsoleRoot.YOUNG + "&section=needs",
                "/search?q=scriptword")) {
            HttpResponse<String> r = b.get(path);
            assertEquals(200, r.statusCode(), path + ": " + r.body());
            String body = r.body();
            assertFalse(
                    body.contains("<script>") || body.contains("<img") || body.contains("<b>x"),
                    path + " carries live markup: " + body);
            assertTrue(
                    body.contains("&lt;script&gt;document.title=&#39;owned&#39;&lt;/script&gt;"), path + ": " + body);
        }
    }

    @Test
    void aNonLoopbackAddress_isRefused_unlessNamedExplicitly() throws Exception {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> ConsoleServer.start(
                        new ConsoleServer.Options(
                                root.dir, root.cfg.socket(), InetAddress.getByName("0.0.0.0"), false, 0, "x"),
                        u -> {}));
        assertTrue(e.getMessage().contains("--bind"), e.getMessage());
    }

    private static String raw(String request) throws Exception {
        try (Socket s = new Socket("127.0.0.1", root.console.port())) {
            OutputStream o = s.getOutputStream();
            o.write(request.getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
