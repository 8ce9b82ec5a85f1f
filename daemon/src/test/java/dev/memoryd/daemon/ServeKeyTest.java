package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.daemon.app.Daemon;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.ledger.KeyCheck;
import dev.memoryd.ledger.KeyRing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} appends to a ledger only with the key it was written with: a root served with
 * another key file, or with none where its ledger already has lines, is refused before anything
 * is written or repaired, and no key is made that could not verify the lines there.
 */
class ServeKeyTest {
    @TempDir
    Path tmp;

    TestRoot root;

    @BeforeEach
    void aRootWhoseLedgerHasLines() throws Exception {
        root = new TestRoot(tmp).serve();
        root.daemon.close();
        root.daemon = null;
    }

    @AfterEach
    void down() {
        root.close();
    }

    /** What serve left: exit code and output. */
    private record Refusal(int exit, String output) {}

    /**
     * Runs {@code serve} as a child process with {@code keyFile}; it must exit within 60 s. One that
     * comes up and answers fails the test: it served the root with that key.
     */
    private Refusal serveWith(Path keyFile) throws Exception {
        MemorydConfig cfg = MemorydConfig.defaults(root.dir, keyFile);
        Path log = tmp.resolve("serve-" + System.nanoTime() + ".log");
        Process p = new ProcessBuilder(DaemonProcess.serveCommand(root.dir, keyFile))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (p.isAlive() && System.nanoTime() < deadline) {
                try (SocketClient c = SocketClient.connect(cfg.socket())) {
                    if (c.call("ping", null).has("result")) {
                        throw new AssertionError(
                                "serve came up with key file " + keyFile + ":\n" + Files.readString(log));
                    }
                } catch (IOException notUp) {
                    Thread.sleep(50);
                }
            }
            assertTrue(p.waitFor(1, TimeUnit.SECONDS), "serve neither came up nor stopped within 60 s");
            return new Refusal(p.exitValue(), Files.readString(log));
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** HEAD, the index's view and every byte under ledger/ and the working tree's memory files. */
    private String state() throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (String top : List.of("ledger", "users")) {
            try (Stream<Path> s = Files.walk(root.dir.resolve(top))) {
                for (Path f : (Iterable<Path>) s.filter(Files::isRegularFile).sorted()::iterator) {
                    md.update(root.dir.relativize(f).toString().getBytes());
                    md.update(Files.readAllBytes(f));
                }
            }
        }
        return root.git("rev-parse", "HEAD").strip() + " "
                + root.git("status", "--porcelain").strip() + " "
                + HexFormat.of().formatHex(md.digest());
    }

    @Test
    void anotherKeyFile_isRefusedWithExitTwo_beforeAnythingIsWritten() throws Exception {
        Path other = tmp.resolve("other/ledger.key");
        KeyRing.loadOrCreate(other, new SecureRandom());
        String before = state();

        Refusal r = serveWith(other);

        assertEquals(2, r.exit(), r.output());
        assertTrue(r.output().contains("memoryd: the key file " + other + " is not the one the ledger"), r.output());
        assertEquals(before, state(), "serve with another key changed the root");
        KeyCheck.WrongKeyFile e = assertThrows(
                KeyCheck.WrongKeyFile.class, () -> Daemon.start(MemorydConfig.defaults(root.dir, other), false));
        assertEquals(other, e.file());
        assertEquals(before, state());
        try (TestRoot again = TestRoot.existing(root.dir, root.cfg.keyFile()).serveAsIs()) {
            assertTrue(
                    again.call("ledger.verify", null).path("result").path("ok").asBoolean());
        }
    }

    @Test
    void noKeyFile_onARootWhoseLedgerHasLines_isRefusedWithExitTwo_andNoKeyIsMade() throws Exception {
        Path missing = tmp.resolve("nowhere/ledger.key");
        String before = state();

        Refusal r = serveWith(missing);

        assertEquals(2, r.exit(), r.output());
        assertTrue(r.output().contains("memoryd: no ledger key file at " + missing), r.output());
        assertFalse(Files.exists(missing), "a key was made that cannot verify the ledger's lines");
        assertEquals(before, state());
    }

    @Test
    void clone_ofARootWithLines_withoutTheKey_makesNoKey_andSaysWhatToCopy() throws Exception {
        Path remote = TestRoot.bareRemote(tmp.resolve("remote.git"));
        root.git("push", "-q", remote.toString(), "main");
        Path missing = tmp.resolve("laptop/ledger.key");
        List<String> did =
                Memoryd.cloneRoot(MemorydConfig.defaults(tmp.resolve("clone"), missing), remote.toString(), "laptop");
        assertFalse(Files.exists(missing), "clone made a key the origin's lines cannot verify");
        assertTrue(
                did.stream().anyMatch(l -> l.startsWith("no key file at " + missing + ": copy the key file")),
                String.join("\n", did));
        Path own = tmp.resolve("own/ledger.key");
        KeyRing.loadOrCreate(own, new SecureRandom());
        assertThrows(
                KeyCheck.WrongKeyFile.class,
                () -> Daemon.start(
                                MemorydConfig.defaults(tmp.resolve("clone"), own)
                                        .withIdleTimeout(java.time.Duration.ofSeconds(10)),
                                false)
                        .close(),
                "a clone served with a key of its own");
    }
}
