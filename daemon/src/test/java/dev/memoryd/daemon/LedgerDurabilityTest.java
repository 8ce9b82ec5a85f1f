package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Writes answered at ledger durability: the reply comes once the ledger lines are durable, and
 * nothing said of such a write is ever taken back. A read after the reply sees the write; a
 * publication that fails after the reply is redone from the ledger once the fault is gone, with
 * no restart, and meanwhile reads and writes are refused with the cause rather than answered
 * without it.
 */
class LedgerDurabilityTest extends ServedRootTest {
    static final String CRITIC = WriteEndToEndTest.CRITIC;

    private static String append(String item, String durability) {
        return "{\"rationale\":\"r\"," + (durability == null ? "" : "\"durability\":\"" + durability + "\",")
                + "\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                + "\",\"section\":\"Open Questions\",\"item\":\"" + item + "\"}]}";
    }

    private static int count(String text, String line) {
        int n = 0;
        for (int at = text.indexOf(line); at >= 0; at = text.indexOf(line, at + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void aWriteAnsweredAtTheLedger_carriesItsEventsButNoCommit_andAReadRightAfterSeesIt() throws Exception {
        java.util.List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            JsonNode w = ok("write", append("ledger item " + i, "ledger"));
            assertTrue(w.get("commit").isNull(), w.toString());
            assertEquals("ledger", w.get("durability").asText(), w.toString());
            JsonNode ev = w.get("events").get(0);
            ids.add(ev.get("event_id").asText());
            assertTrue(ev.get("token").asText().startsWith("ev:"), w.toString());
            JsonNode read = ok("read", "{\"path\":\"" + CRITIC + "\",\"section\":\"Open Questions\"}");
            assertTrue(read.get("content").asText().contains("- ledger item " + i + "\n"), read.toString());
            assertEquals(ev.get("after_hash").asText(), read.get("hash").asText(), "the reply's hash is the section's");
        }
        for (int i = 0; i < 20; i++) {
            String msg = root.git("log", "-1", "--format=%B", "HEAD~" + (19 - i));
            assertTrue(msg.contains(ids.get(i)), "each write is its own commit, in order: " + i + "\n" + msg);
        }
        assertEquals("", root.git("status", "--porcelain"));
        JsonNode c = ok("write", append("commit item", null));
        assertTrue(c.get("commit").isTextual(), "the default answers with the commit: " + c);
        assertFalse(c.has("durability"), c.toString());
        assertTrue(ok("ledger.verify", null).get("ok").asBoolean());
    }

    @Test
    void anUnknownDurability_isRefusedNamingTheField_andChangesNothing() throws Exception {
        String head = root.git("rev-parse", "HEAD");
        JsonNode r = root.call("write", append("never", "disk"));
        assertEquals("invalid_request", r.at("/error/data/reason").asText(), r.toString());
        assertEquals("durability", r.at("/error/data/field").asText(), r.toString());
        assertEquals(head, root.git("rev-parse", "HEAD"));
        assertFalse(root.file(CRITIC).contains("never"));
    }

    @Test
    void aWriteAnsweredAtTheLedgerWhoseFilesCannotBePlaced_isPublishedOnceTheFaultIsGone_withoutARestart()
            throws Exception {
        Path dir = root.dir.resolve(CRITIC).getParent();
        String head = root.git("rev-parse", "HEAD");
        String eventId;
        TestRoot.chattr("+i", dir);
        try {
            JsonNode w = ok("write", append("answered first", "ledger"));
            eventId = w.at("/events/0/event_id").asText();
            assertEquals("ledger", w.get("durability").asText(), w.toString());
            long r0 = System.nanoTime();
            JsonNode read = root.call("read", "{\"path\":\"" + CRITIC + "\"}");
            assertEquals(
                    "unavailable",
                    read.at("/error/data/reason").asText(),
                    "a read that could not show the answered write is refused: " + read);
            assertTrue(System.nanoTime() - r0 < 2_000_000_000L, "refused at once, not after a wait");
            JsonNode other = root.call("write", append("refused meanwhile", null));
            assertEquals("unavailable", other.at("/error/data/reason").asText(), other.toString());
            assertEquals(false, other.at("/error/data/recorded").asBoolean(true), other.toString());
            JsonNode ping = root.call("ping", null).get("result");
            assertEquals("unsettled", ping.at("/writer/state").asText(), ping.toString());
            assertEquals(head, root.git("rev-parse", "HEAD"));
        } finally {
            TestRoot.chattr("-i", dir);
        }
        // The next write is the retry, whatever the back-off of the tries while writes paused.
        JsonNode next = root.call("write", append("right after the fault", null));
        assertTrue(next.at("/result/commit").isTextual(), "a write once the fault is gone goes through: " + next);
        JsonNode read = null;
        for (long until = System.nanoTime() + 20_000_000_000L; System.nanoTime() < until; Thread.sleep(100)) {
            read = root.call("read", "{\"path\":\"" + CRITIC + "\"}");
            if (read.has("result")) {
                break;
            }
        }
        assertTrue(read.has("result"), "published once the fault is gone, with no write to carry it: " + read);
        assertEquals(1, count(read.at("/result/content").asText(), "- answered first\n"), read.toString());
        assertFalse(read.at("/result/content").asText().contains("refused meanwhile"));
        String content = read.at("/result/content").asText();
        assertTrue(
                content.indexOf("- answered first\n") < content.indexOf("- right after the fault\n"),
                "published before the write that came after it: " + content);
        assertTrue(root.git("log", "-1", "--format=%B", "HEAD~1").contains(eventId), "its own commit, on the branch");
        awaitClean();
        assertEquals("ok", root.call("ping", null).at("/result/writer/state").asText());
        assertTrue(ok("ledger.verify", null).get("ok").asBoolean());
        root.close();
        root.serve();
        assertEquals(1, count(root.file(CRITIC), "- answered first\n"), "a restart does not redo it again");
        assertFalse(root.file(CRITIC).contains("refused meanwhile"));
        assertEquals(1, count(root.file(CRITIC), "- right after the fault\n"));
        assertEquals("", root.git("status", "--porcelain"));
    }

    @Test
    void aRefDirectoryTurnedImmutableWhileWritesAreAnsweredAtTheLedger_losesNothing_andWritesGoOnOnceItIsBack()
            throws Exception {
        Path refs = root.dir.resolve(".git/refs/heads");
        java.util.Set<String> acked = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread agent = new Thread(() -> {
            try (dev.memoryd.daemon.client.SocketClient c = root.client()) {
                for (int i = 0; !stop.get(); i++) {
                    String item = "streamed " + i;
                    JsonNode r = c.call("write", TestRoot.json(append(item, "ledger")));
                    if (r.has("result")) {
                        acked.add(item);
                    }
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        agent.start();
        java.util.Random rnd = new java.util.Random(3);
        try {
            // The fault strikes at random moments: some between a batch's ref lock and its ref move,
            // after its ledger-durability replies.
            for (int k = 0; k < 12; k++) {
                Thread.sleep(rnd.nextInt(15));
                TestRoot.chattr("+i", refs);
                try {
                    Thread.sleep(20);
                } finally {
                    TestRoot.chattr("-i", refs);
                }
            }
        } finally {
            stop.set(true);
            agent.join(10_000);
        }
        JsonNode next = root.call("write", append("after the faults", null));
        assertTrue(next.at("/result/commit").isTextual(), "a write once the fault is gone goes through: " + next);
        assertFalse(acked.isEmpty());
        String text = root.file(CRITIC);
        for (String item : acked) {
            assertEquals(1, count(text, "- " + item + "\n"), item + " stands once: acknowledged");
        }
        assertTrue(ok("ledger.verify", null).get("ok").asBoolean());
        awaitClean();
    }

    @Test
    void aRootWhoseSettingsSayLedger_answersWritesThatNameNoneAtTheLedger_andAWriteMayStillAskForItsCommit()
            throws Exception {
        root.close();
        java.nio.file.Files.writeString(root.dir.resolve(RootSettings.FILE), "durability: ledger\n");
        root.git("add", RootSettings.FILE);
        root.git("commit", "-qm", "answer writes at the ledger");
        root.serve();
        JsonNode w = ok("write", append("by the root's default", null));
        assertEquals("ledger", w.get("durability").asText(), w.toString());
        assertTrue(w.get("commit").isNull(), w.toString());
        JsonNode c = ok("write", append("asked for its commit", "commit"));
        assertTrue(c.get("commit").isTextual(), c.toString());
        assertTrue(root.file(CRITIC).contains("- by the root's default\n"));
    }

    @Test
    void theRootSetting_takesCommitOrLedger_andNamesTheKeyOtherwise() {
        assertEquals(
                dev.memoryd.daemon.write.Durability.COMMIT,
                RootSettings.parse("").durability());
        assertEquals(
                dev.memoryd.daemon.write.Durability.LEDGER,
                RootSettings.parse("durability: ledger\n").durability());
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> RootSettings.parse("durability: fsync\n"));
        assertTrue(e.getMessage().contains("'durability' must be commit or ledger"), e.getMessage());
    }

    private void awaitClean() throws Exception {
        String st = null;
        for (long until = System.nanoTime() + 5_000_000_000L; System.nanoTime() < until; Thread.sleep(50)) {
            st = root.git("status", "--porcelain");
            if (st.isEmpty()) {
                return;
            }
        }
        assertEquals("", st, "the index records the redone write once writes pause");
    }
}
