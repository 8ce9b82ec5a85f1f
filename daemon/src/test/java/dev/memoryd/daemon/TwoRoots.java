package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Two served roots and the bare repository between them: root {@code a} (the example tree,
 * synced once to the remote, so its main is there) and root {@code b}, a memoryd clone of the
 * remote as replica {@code b}, sharing a's key. For tests of sync, clones and what travels.
 */
final class TwoRoots implements AutoCloseable {
    final Path remote;
    final TestRoot a;
    final TestRoot b;

    private TwoRoots(Path remote, TestRoot a, TestRoot b) {
        this.remote = remote;
        this.a = a;
        this.b = b;
    }

    static TwoRoots start(Path tmp) throws Exception {
        Path remote = tmp.resolve("remote.git");
        run("git", "init", "--bare", "-q", "-b", "main", remote.toString());
        TestRoot a = new TestRoot(tmp.resolve("a")).serve();
        a.git("remote", "add", "origin", remote.toString());
        JsonNode first = a.call("sync", "{\"remote\":\"origin\"}");
        assertTrue(first.has("result") && first.get("result").get("ok").asBoolean(), first.toString());
        TestRoot b = TestRoot.cloneOf(tmp.resolve("b"), remote.toString(), a.cfg.keyFile(), "b")
                .serveAsIs();
        return new TwoRoots(remote, a, b);
    }

    /** Runs a command; fails the test on a non-zero exit. Returns its output. */
    static String run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
        return out;
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }
}
