package dev.memoryd.daemon.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.daemon.cli.Main;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memoryd console} as a child process, as a user starts it: what it prints, the login URL
 * working, a second console on the same root refused with the first one's URL, an address other
 * than loopback refused, and the token file gone when it stops.
 */
@Timeout(120)
class ConsoleCommandTest {
    private static final Pattern LOGIN =
            Pattern.compile("login \\(works once\\): (http://127\\.0\\.0\\.1:(\\d+)/login\\?token=\\S+)");

    @TempDir
    Path tmp;

    ConsoleRoot root;
    final List<Process> started = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (Process p : started) {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        if (root != null) {
            root.close();
        }
    }

    private Process console(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "console",
                "--root",
                root.dir.toString(),
                "--actor",
                ConsoleRoot.ACTOR));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        started.add(p);
        return p;
    }

    /** Lines the process prints until one matches {@code p}; that match. */
    private static Matcher await(BufferedReader out, Pattern p, StringBuilder seen) throws IOException {
        for (String line; (line = out.readLine()) != null; ) {
            seen.append(line).append('\n');
            Matcher m = p.matcher(line);
            if (m.find()) {
                return m;
            }
        }
        throw new AssertionError("the console ended without printing " + p + ":\n" + seen);
    }

    /** What a process that should end soon printed (it prints little); stopped and failed if it runs on. */
    private static String all(Process p) throws Exception {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("still running after 60 s (it was to be refused at its start)");
        }
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void theConsolePrintsItsLoginUrl_aSecondOneIsRefusedNamingIt_andStoppingRemovesTheTokenFile() throws Exception {
        root = new ConsoleRoot(tmp).startDaemon();
        Process first = console("--port", "0");
        BufferedReader out = new BufferedReader(new InputStreamReader(first.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        Matcher login = await(out, LOGIN, seen);
        String base = "http://127.0.0.1:" + login.group(2);
        await(
                out,
                Pattern.compile(Pattern.quote(
                        "memoryd console for " + root.dir + " at " + base + ", deciding as " + ConsoleRoot.ACTOR)),
                seen);
        Path tokenFile = root.dir.resolve(".memoryd/console.token");
        assertEquals(
                login.group(1),
                base + "/login?token=" + Files.readString(tokenFile).strip());
        HttpClient browser = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NORMAL)
                .cookieHandler(new java.net.CookieManager())
                .build();
        HttpResponse<String> r = browser.send(
                HttpRequest.newBuilder(URI.create(login.group(1))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), "logged in and shown the overview");
        assertTrue(r.body().contains("Overview"), r.body());
        String tokenNow = Files.readString(tokenFile);

        Process second = console("--port", "0");
        String refusal = all(second);
        assertEquals(1, second.exitValue(), refusal);
        assertTrue(refusal.contains("a console for " + root.dir + " is already running at " + base), refusal);
        assertEquals(tokenNow, Files.readString(tokenFile), "the first console's token file is left alone");
        // A `git clean -fdx` takes `.memoryd/`, but not the lock: a console started after it is refused too.
        Process clean = new ProcessBuilder("git", "-C", root.dir.toString(), "clean", "-fdxq")
                .redirectErrorStream(true)
                .start();
        assertEquals(0, clean.waitFor(), new String(clean.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        assertFalse(Files.exists(root.dir.resolve(".memoryd")), "git clean removed the state directory");
        Process afterClean = console("--port", "0");
        String refusedAgain = all(afterClean);
        assertEquals(1, afterClean.exitValue(), refusedAgain);
        assertTrue(refusedAgain.contains("a console for " + root.dir + " is already running at " + base), refusedAgain);
        assertTrue(refusedAgain.contains(tokenFile.toString()), refusedAgain);
        // The refusal points at the token file for the login URL: the running console writes it again.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(tokenFile) && System.nanoTime() < until) {
            Thread.sleep(100);
        }
        assertEquals(tokenNow, Files.readString(tokenFile), "the same token, written again after git clean");
        assertEquals(
                "rw-------",
                java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile)));
        assertEquals(
                "rwx------",
                java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(tokenFile.getParent())));
        Path socket = root.dir.resolve(".memoryd/memoryd.sock");
        while (!Files.exists(socket) && System.nanoTime() < until) {
            Thread.sleep(100); // the daemon binds its socket again too, for the overview behind the login
        }
        HttpResponse<String> again = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NORMAL)
                .cookieHandler(new java.net.CookieManager())
                .build()
                .send(
                        HttpRequest.newBuilder(URI.create(base + "/login?token=" + tokenNow.strip()))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(200, again.statusCode(), "the token read from the file logs a browser in");
        assertTrue(again.body().contains("Overview"), again.body());

        first.destroy();
        assertTrue(first.waitFor(30, TimeUnit.SECONDS));
        assertFalse(Files.exists(tokenFile), "a stopped console leaves no token behind");
        Process third = console("--port", "0");
        await(
                new BufferedReader(new InputStreamReader(third.getInputStream(), StandardCharsets.UTF_8)),
                LOGIN,
                new StringBuilder());
    }

    @Test
    void anAddressOtherThanLoopback_isRefusedWithoutAllowRemote_andWithItWarns() throws Exception {
        root = new ConsoleRoot(tmp);
        Process noRoot = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "console",
                        "--root",
                        tmp.resolve("none").toString())
                .redirectErrorStream(true)
                .start();
        started.add(noRoot);
        String none = all(noRoot);
        assertEquals(1, noRoot.exitValue(), none);
        assertTrue(none.contains("is not a memory root"), none);

        Process refused = console("--port", "0", "--bind", "0.0.0.0");
        String refusal = all(refused);
        assertEquals(1, refused.exitValue(), refusal);
        assertTrue(
                refusal.contains(
                        "refusing to serve the console on 0.0.0.0: only this machine (127.0.0.1) unless you add"
                                + " --allow-remote"),
                refusal);
        assertFalse(Files.exists(root.dir.resolve(".memoryd/console.token")), "nothing was started");

        Process open = console("--port", "0", "--bind", "0.0.0.0", "--allow-remote");
        BufferedReader out = new BufferedReader(new InputStreamReader(open.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        await(out, Pattern.compile("no daemon serves "), seen);
        assertTrue(
                seen.toString().contains("warning: the console listens on 0.0.0.0, not only on this machine"),
                seen.toString());
        assertTrue(
                seen.toString().contains("no daemon serves " + root.dir + " yet; start one: bin/memoryd serve --root "),
                seen.toString());
    }
}
