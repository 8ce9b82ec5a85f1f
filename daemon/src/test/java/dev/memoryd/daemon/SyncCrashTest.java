package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a replica's daemon (a real child process, SIGKILL) at random moments while it writes and
 * syncs with another root over a bare repository: mid-fetch, mid-merge, mid-commit of other
 * replicas' chains, mid-push. After every restart its ledger verifies, it replays from empty to
 * its working tree, and every write it acknowledged is there; at the end the two roots settle
 * with every acknowledged write of both. {@code -Dmemoryd.soak=true} raises the kills from 12 to 200.
 */
class SyncCrashTest {
    static final String A_FILE = "users/sam/parts/inner-critic/notes.md";
    static final String B_FILE = "users/sam/parts/young-one/notes.md";

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS)
    Path tmp; // a failure leaves both roots and b's daemon.log

    @Test
    void killNineDuringSyncs_losesNoAcknowledgedWrite_andTheRootsStillSettle() throws Exception {
        int kills = Integer.getInteger("memoryd.syncKills", Boolean.getBoolean("memoryd.soak") ? 200 : 12);
        Path remote = TestRoot.bareRemote(tmp.resolve("remote.git"));
        Random rnd = new Random(7);
        Set<String> ackedA = ConcurrentHashMap.newKeySet();
        Set<String> ackedB = ConcurrentHashMap.newKeySet();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (TestRoot a = new TestRoot(tmp.resolve("a")).serve()) {
            a.git("remote", "add", "origin", remote.toString());
            assertTrue(a.call("sync", "{\"remote\":\"origin\"}")
                    .get("result")
                    .get("ok")
                    .asBoolean());
            MemorydConfig b = MemorydConfig.defaults(tmp.resolve("b/memory"), a.cfg.keyFile());
            Memoryd.cloneRoot(b, remote.toString(), "b");
            for (int k = 0; k < kills; k++) {
                Process p = CrashSafetyTest.start(b);
                try {
                    check(b, ackedB, k);
                    for (int i = 0; i < 3; i++) {
                        String item = "a k" + k + " i" + i;
                        if (append(a.cfg, A_FILE, item)) {
                            ackedA.add(item);
                        }
                    }
                    a.call(
                            "sync",
                            "{\"remote\":\"origin\"}"); // its push may lose the race with b's: the next one merges
                    AtomicBoolean stop = new AtomicBoolean();
                    final int round = k;
                    Thread writer = new Thread(() -> {
                        for (int i = 0; !stop.get(); i++) {
                            String item = "b k" + round + " i" + i;
                            try {
                                if (append(b, B_FILE, item)) {
                                    ackedB.add(item);
                                }
                            } catch (IOException e) {
                                return; // killed
                            }
                        }
                    });
                    Thread syncer = new Thread(() -> {
                        while (!stop.get()) {
                            try (SocketClient c = SocketClient.connect(b.socket())) {
                                c.call("sync", TestRoot.json("{\"remote\":\"origin\"}"));
                            } catch (IOException e) {
                                return; // killed
                            }
                        }
                    });
                    writer.setUncaughtExceptionHandler((t, e) -> errors.add(e));
                    syncer.setUncaughtExceptionHandler((t, e) -> errors.add(e));
                    int before = ackedB.size();
                    writer.start();
                    syncer.start();
                    // On a loaded machine the daemon may not answer a write within a fixed delay: the kill
                    // waits for this round's first acknowledged write (15 s at most), then comes at random.
                    long firstAckBy = System.nanoTime() + 15_000_000_000L;
                    while (ackedB.size() == before && System.nanoTime() < firstAckBy) {
                        Thread.sleep(10);
                    }
                    Thread.sleep(rnd.nextInt(900));
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                    stop.set(true);
                    writer.join(10_000);
                    syncer.join(10_000);
                } finally {
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            }
            // A push killed mid-update can leave the remote's ref lock behind, as with git itself: the
            // remote's owner removes it (memoryd never deletes a remote's files).
            try (java.util.stream.Stream<Path> locks = Files.walk(remote.resolve("refs"))) {
                for (Path lock : (Iterable<Path>) locks.filter(x -> x.toString().endsWith(".lock"))::iterator) {
                    Files.delete(lock);
                }
            }
            Process p = CrashSafetyTest.start(b);
            try {
                check(b, ackedB, kills);
                for (int round = 0; round < 4; round++) {
                    JsonNode sa = a.call("sync", "{\"remote\":\"origin\"}").get("result");
                    JsonNode sb;
                    try (SocketClient c = SocketClient.connect(b.socket())) {
                        sb = c.call("sync", TestRoot.json("{\"remote\":\"origin\"}"))
                                .get("result");
                    }
                    assertTrue(sa.get("ok").asBoolean() && sb.get("ok").asBoolean(), sa + " / " + sb);
                }
                String fa = a.file(A_FILE) + a.file(B_FILE);
                String fb = Files.readString(b.root().resolve(A_FILE))
                        + Files.readString(b.root().resolve(B_FILE));
                assertEquals(fa, fb, "the roots settled on the same files");
                for (String s : ackedA) {
                    assertTrue(fb.contains(s + "\n"), "a's acknowledged " + s + " reached b");
                }
                for (String s : ackedB) {
                    assertTrue(fa.contains(s + "\n"), "b's acknowledged " + s + " reached a");
                }
                JsonNode va = a.call("ledger.verify", null).get("result");
                assertTrue(va.get("ok").asBoolean(), va.toString());
                assertTrue(a.call("replay", "{\"verify\":true}")
                        .get("result")
                        .get("ok")
                        .asBoolean());
            } finally {
                p.destroy();
                p.waitFor(20, TimeUnit.SECONDS);
            }
        }
        assertTrue(errors.isEmpty(), errors.toString());
        assertTrue(ackedB.size() > kills, "too few acknowledged writes to prove anything: " + ackedB.size());
    }

    private static boolean append(MemorydConfig cfg, String path, String item) throws IOException {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            JsonNode r = c.call(
                    "write",
                    TestRoot.json(
                            "{\"rationale\":\"r\",\"actor\":\"agent\",\"ops\":[{\"op\":" + "\"append_item\",\"path\":\""
                                    + path + "\",\"section\":\"Inbox\",\"item\":\"" + item + "\"}]}"));
            if (r == null) {
                throw new IOException("connection closed");
            }
            return r.has("result");
        }
    }

    /** After a restart: the ledger verifies, replay gives the working tree, every acknowledged write is on disk. */
    private static void check(MemorydConfig b, Set<String> acked, int round) throws IOException {
        try (SocketClient c = SocketClient.connect(b.socket())) {
            JsonNode v = c.call("ledger.verify", null).get("result");
            assertTrue(v.get("ok").asBoolean(), "round " + round + ": " + v);
            JsonNode r = c.call("replay", TestRoot.json("{\"verify\":true}")).get("result");
            assertTrue(r.get("ok").asBoolean(), "round " + round + ": " + r);
        }
        String text = Files.readString(b.root().resolve(B_FILE));
        List<String> missing = new ArrayList<>();
        for (String s : acked) {
            if (!text.contains(s + "\n")) {
                missing.add(s);
            }
        }
        assertTrue(missing.isEmpty(), "round " + round + ": acknowledged writes lost: " + missing);
    }
}
