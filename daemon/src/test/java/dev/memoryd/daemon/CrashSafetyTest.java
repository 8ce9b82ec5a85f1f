package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams two-op declarations at a real daemon child process and SIGKILLs it at random moments;
 * one of the three clients asks to be answered at ledger durability (before its commit).
 * After every restart: each acknowledged declaration is present, each unacknowledged one is
 * wholly present or wholly absent, the ledger verifies, and the working tree matches the branch
 * head. A human meanwhile saves the user's notes (temp file and rename, as editors do): every
 * word they saved is on disk after every restart, and at the end the ledger replays from empty
 * to exactly the working tree. {@code -Dmemoryd.soak=true} raises the kill count from 30 to 1,000.
 */
class CrashSafetyTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    static final String YOUNG = "users/sam/parts/young-one/profile.md";
    static final String NOTES = "users/sam/notes.md";

    @TempDir
    Path tmp;

    @Test
    void killNineAtRandomMoments_neverLosesAnAcknowledgedWrite() throws Exception {
        int kills = Integer.getInteger("memoryd.kills", Boolean.getBoolean("memoryd.soak") ? 1000 : 30);
        Path rootDir = tmp.resolve("memory");
        MemorydConfig cfg = MemorydConfig.defaults(rootDir, tmp.resolve("ledger.key"));
        Memoryd.init(cfg, TestRoot.exampleTree());
        Random rnd = new Random(42);
        Set<String> acked = ConcurrentHashMap.newKeySet();
        Set<String> sent = ConcurrentHashMap.newKeySet();
        Set<Long> slipAcked = ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicLong slipTurn = new java.util.concurrent.atomic.AtomicLong();
        List<Throwable> clientErrors = new java.util.concurrent.CopyOnWriteArrayList<>();
        Set<String> humanWords = ConcurrentHashMap.newKeySet();
        for (int k = 0; k < kills; k++) {
            Process p = start(cfg);
            try {
                try {
                    checkInvariants(cfg, acked, sent, humanWords, k);
                } catch (AssertionError e) {
                    List<String> log = Files.readAllLines(tmp.resolve("daemon.log"));
                    throw new AssertionError(
                            e.getMessage() + "\n--- daemon log tail ---\n"
                                    + String.join("\n", log.subList(Math.max(0, log.size() - 60), log.size())),
                            e);
                }
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> clients = new ArrayList<>();
                for (int c = 0; c < 3; c++) {
                    final String prefix = "k" + k + "c" + c + "w";
                    // One client is answered once its ledger lines are durable, before its commit.
                    final String durability = c == 2 ? "ledger" : "commit";
                    Thread t = new Thread(() -> stream(cfg, prefix, durability, acked, sent, stop));
                    t.setUncaughtExceptionHandler((th, e) -> clientErrors.add(e));
                    t.start();
                    clients.add(t);
                }
                final int round = k;
                Thread human = new Thread(() -> human(cfg, round, humanWords, stop));
                human.setUncaughtExceptionHandler((th, e) -> clientErrors.add(e));
                human.start();
                clients.add(human);
                Thread slipper = new Thread(() -> slip(cfg, slipTurn, slipAcked, stop));
                slipper.setUncaughtExceptionHandler((th, e) -> clientErrors.add(e));
                slipper.start();
                clients.add(slipper);
                Thread.sleep(50 + rnd.nextInt(750));
                p.destroyForcibly(); // SIGKILL on Linux
                p.waitFor(10, TimeUnit.SECONDS);
                stop.set(true);
                for (Thread t : clients) {
                    t.join(10_000);
                }
            } finally {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
        Process p = start(cfg);
        try {
            checkInvariants(cfg, acked, sent, humanWords, kills);
            try (SocketClient c = SocketClient.connect(cfg.socket())) {
                JsonNode replay =
                        c.call("replay", TestRoot.json("{\"verify\":true}")).get("result");
                assertTrue(
                        replay.get("ok").asBoolean(), "the ledger replays from empty to the working tree: " + replay);
            }
            // Every acknowledged SLIP message survives the kills and is delivered exactly once.
            Set<Long> delivered = new java.util.HashSet<>();
            try (SocketClient c = SocketClient.connect(cfg.socket())) {
                JsonNode r = c.call("slip.recv", TestRoot.json("{\"agent\":1,\"max\":10000}"))
                        .get("result");
                for (JsonNode m : r.get("messages")) {
                    assertTrue(delivered.add(m.get("turn").asLong()), "delivered twice: " + m);
                }
            }
            for (Long t : slipAcked) {
                assertTrue(delivered.contains(t), "acknowledged SLIP message " + t + " lost");
            }
            System.out.println("slip acknowledged=" + slipAcked.size() + " delivered=" + delivered.size());
        } finally {
            p.destroy();
            p.waitFor(20, TimeUnit.SECONDS);
        }
        assertTrue(clientErrors.isEmpty(), "client threads failed: " + clientErrors);
        assertTrue(acked.size() > kills, "too few acknowledged writes to prove anything: " + acked.size());
        String log = Files.readString(tmp.resolve("daemon.log"));
        System.out.println("acknowledged=" + acked.size() + " sent=" + sent.size() + " roll-forwards="
                + log.split("recovery rolled", -1).length + " torn-tail notes=" + log.split("torn", -1).length);
        Process fsck = new ProcessBuilder("git", "fsck", "--full")
                .directory(rootDir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(fsck.getInputStream().readAllBytes());
        assertEquals(0, fsck.waitFor(), "git fsck --full: " + out);
    }

    private static void stream(
            MemorydConfig cfg,
            String prefix,
            String durability,
            Set<String> acked,
            Set<String> sent,
            AtomicBoolean stop) {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            for (int i = 0; !stop.get(); i++) {
                String item = prefix + i;
                sent.add(item);
                JsonNode r = c.call(
                        "write",
                        TestRoot.json("{\"rationale\":\"crash test\",\"durability\":\"" + durability + "\",\"ops\":["
                                + "{\"op\":\"append_item\",\"path\":\"" + CRITIC
                                + "\",\"section\":\"Triggers\",\"item\":\"" + item + "\"},"
                                + "{\"op\":\"append_item\",\"path\":\"" + YOUNG + "\",\"section\":\"Needs\",\"item\":\""
                                + item + "\"}]}"));
                if (!r.has("result")) {
                    fail("write refused: " + r);
                }
                acked.add(item);
            }
        } catch (IOException e) {
            // the daemon was killed under us
        }
    }

    /** A human saving the user's notes every few milliseconds, as an editor does (temp file, rename). */
    private static void human(MemorydConfig cfg, int round, Set<String> words, AtomicBoolean stop) {
        Path f = cfg.root().resolve(NOTES);
        String marker = "<!-- @anchor: research v1 -->\n";
        try {
            for (int i = 0; !stop.get(); i++) {
                String word = "human-" + round + "-" + i;
                String t = Files.readString(f);
                Path tmp = f.resolveSibling(".notes.md.swp");
                Files.writeString(tmp, t.replace(marker, marker + "\n" + word + "\n"));
                Files.move(
                        tmp,
                        f,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                words.add(word);
                Thread.sleep(30);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void slip(
            MemorydConfig cfg, java.util.concurrent.atomic.AtomicLong turn, Set<Long> acked, AtomicBoolean stop) {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            while (!stop.get()) {
                long t = turn.incrementAndGet();
                JsonNode r = c.call(
                        "slip.send",
                        TestRoot.json("{\"message\":{\"conv_id\":1,\"turn\":" + t
                                + ",\"src\":2,\"dst\":1,\"act\":\"INFORM\",\"frame\":\"TASK\",\"slots\":{}}}"));
                if (!r.has("result")) {
                    fail("slip.send refused: " + r);
                }
                acked.add(t);
            }
        } catch (IOException e) {
            // the daemon was killed under us
        }
    }

    private static void checkInvariants(
            MemorydConfig cfg, Set<String> acked, Set<String> sent, Set<String> humanWords, int k) throws Exception {
        String notes = Files.readString(cfg.root().resolve(NOTES));
        for (String w : humanWords) {
            assertTrue(notes.contains("\n" + w + "\n"), "after kill " + k + ": the human's word " + w + " is gone");
        }
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            JsonNode r = c.call("capture", null); // what the kill left uncaptured is recorded now
            assertTrue(r.has("result"), "after kill " + k + ": capture failed: " + r);
        }
        String critic = Files.readString(cfg.root().resolve(CRITIC));
        String young = Files.readString(cfg.root().resolve(YOUNG));
        for (String item : sent) {
            boolean a = critic.contains("- " + item + "\n");
            boolean b = young.contains("- " + item + "\n");
            if (acked.contains(item)) {
                assertTrue(
                        a && b,
                        "after kill " + k + ": acknowledged " + item + " lost (critic=" + a + ", young=" + b + ")");
            } else {
                assertEquals(a, b, "after kill " + k + ": unacknowledged " + item + " half-applied");
            }
        }
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            JsonNode v = c.call("ledger.verify", null).get("result");
            assertTrue(v.get("ok").asBoolean(), "after kill " + k + ": " + v);
        }
        try (Git g = Git.open(cfg.root().toFile())) {
            Status s = g.status().call();
            // the index is refreshed once writes pause, a few milliseconds after the capture's reply
            for (int i = 0;
                    i < 100 && !(s.getModified().isEmpty() && s.getMissing().isEmpty());
                    i++) {
                Thread.sleep(20);
                s = g.status().call();
            }
            assertTrue(
                    s.getModified().isEmpty() && s.getMissing().isEmpty(),
                    "after kill " + k + ": working tree differs from the branch head: modified=" + s.getModified()
                            + " missing=" + s.getMissing());
        }
    }

    static Process start(MemorydConfig cfg) throws Exception {
        return DaemonProcess.start(cfg, cfg.root().resolveSibling("daemon.log")).process();
    }
}
