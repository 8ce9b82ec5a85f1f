package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.Status;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.Test;

class WriteEndToEndTest extends ServedRootTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    private static String replace(String section, String content) {
        return "{\"op\":\"replace_section\",\"path\":\"" + CRITIC + "\",\"section\":\"" + section + "\",\"content\":\""
                + content + "\"}";
    }

    private JsonNode write(String ops) throws Exception {
        return root.call("write", "{\"rationale\":\"test\",\"actor\":\"tester\",\"ops\":[" + ops + "]}");
    }

    private int commitCount() throws Exception {
        try (Git g = Git.open(root.dir.toFile())) {
            int n = 0;
            for (RevCommit c : g.log().call()) {
                n++;
            }
            return n;
        }
    }

    @Test
    void writeWithoutRationale_isRefusedNamingRationale_andChangesNothing() throws Exception {
        String before = root.file(CRITIC);
        int commits = commitCount();
        String op = replace("Role", "Unexplained.");
        for (String params : new String[] {
            "{\"ops\":[" + op + "]}",
            "{\"rationale\":\"\",\"ops\":[" + op + "]}",
            "{\"rationale\":\" \\n\",\"ops\":[" + op + "]}",
            "{\"rationale\":null,\"ops\":[" + op + "]}"
        }) {
            JsonNode r = root.call("write", params);
            assertEquals(
                    "invalid_op", r.path("error").path("data").path("reason").asText(), params + " -> " + r);
            assertEquals("rationale", r.path("error").path("data").path("field").asText(), r.toString());
        }
        assertEquals(before, root.file(CRITIC));
        assertEquals(commits, commitCount());
        assertTrue(write(op).has("result"), "with a rationale the same op is written");
    }

    @Test
    void evidenceTokenThatNamesNoEvent_isRefusedNamingTheToken_andAResolvingOneIsAccepted() throws Exception {
        String token = write(replace("Role", "First."))
                .get("result")
                .get("events")
                .get(0)
                .get("token")
                .asText();
        char last = token.charAt(token.length() - 1);
        String unknown = token.substring(0, token.length() - 1) + (last == '0' ? '1' : '0');
        String wrongTime = "ev:20000101T000000Z-" + token.substring(token.indexOf('-') + 1);
        String before = root.file(CRITIC);
        int commits = commitCount();
        for (String bad : new String[] {unknown, wrongTime, "ev:nonsense", "not a token"}) {
            JsonNode r = write(replace("Role", "Second.") + ","
                    + "{\"op\":\"append_item\",\"path\":\"" + CRITIC + "\",\"section\":\"Triggers\",\"item\":\"cited\","
                    + "\"evidence_refs\":[\"" + token + "\",\"" + bad + "\"]}");
            JsonNode data = r.path("error").path("data");
            assertEquals("invalid_op", data.path("reason").asText(), bad + " -> " + r);
            assertEquals(bad, data.path("token").asText(), r.toString());
            assertEquals(1, data.path("op_index").asInt(), r.toString());
            assertEquals("ops[1].evidence_refs[1]", data.path("field").asText(), r.toString());
        }
        assertEquals(before, root.file(CRITIC));
        assertEquals(commits, commitCount());
        JsonNode ok = write("{\"op\":\"append_item\",\"path\":\"" + CRITIC + "\",\"section\":\"Triggers\","
                + "\"item\":\"cited\",\"evidence_refs\":[\"" + token + "\"]}");
        assertTrue(ok.has("result"), ok.toString());
        String cited = ok.get("result").get("events").get(0).get("token").asText();
        assertEquals(
                token,
                root.call("resolve", "{\"token\":\"" + cited + "\"}")
                        .get("result")
                        .get("evidence_refs")
                        .get(0)
                        .asText(),
                "the event records the evidence it cites");
    }

    @Test
    void ping_reportsVersionAndProtocol() throws Exception {
        JsonNode r = root.call("ping", null).get("result");
        assertEquals(Memoryd.PROTOCOL_VERSION, r.get("protocol").asText());
        assertFalse(r.get("version").asText().isEmpty());
    }

    @Test
    void replaceSection_writesFileLedgerAndOneCommit_andReadsBack() throws Exception {
        String before = root.file(CRITIC);
        int commits = commitCount();
        JsonNode r = write(replace("Role", "Keeps Sam from being caught off guard."));
        JsonNode res = r.get("result");
        assertTrue(res.get("changed").asBoolean(), r.toString());
        assertEquals(1, res.get("events").size());
        String token = res.get("events").get(0).get("token").asText();
        assertTrue(token.matches("ev:\\d{8}T\\d{6}Z-[0-9A-HJKMNP-TV-Z]{26}"), token);
        assertEquals(commits + 1, commitCount());

        String after = root.file(CRITIC);
        assertTrue(after.contains("Keeps Sam from being caught off guard."));
        // bytes outside Role, last_updated and the Change Log are untouched
        String roleBefore = section(before, "## Role");
        String roleAfter = section(after, "## Role");
        assertNotEquals(roleBefore, roleAfter);
        assertEquals(section(before, "## Triggers"), section(after, "## Triggers"));

        JsonNode read = root.call("read", "{\"path\":\"" + CRITIC + "\",\"section\":\"role\"}")
                .get("result");
        assertEquals(
                "Keeps Sam from being caught off guard.\n", read.get("content").asText());
        assertEquals(
                res.get("events").get(0).get("after_hash").asText(),
                read.get("hash").asText());

        JsonNode ev = root.call("resolve", "{\"token\":\"" + token + "\"}").get("result");
        assertEquals("replace_section", ev.get("op").asText());
        assertEquals(CRITIC, ev.get("file_path").asText());

        JsonNode hist = root.call("history", "{\"path\":\"" + CRITIC + "\"}").get("result");
        assertEquals(2, hist.get("events").size(), "the write, then the example tree's import");
        assertEquals("replace_section", hist.get("events").get(0).get("op").asText());
        assertEquals("human_edit", hist.get("events").get(1).get("op").asText());

        JsonNode v = root.call("ledger.verify", null).get("result");
        assertTrue(v.get("ok").asBoolean(), v.toString());

        try (Git g = Git.open(root.dir.toFile())) {
            RevCommit head = g.log().setMaxCount(1).call().iterator().next();
            assertTrue(
                    head.getFullMessage()
                            .contains("Memoryd-Event: " + ev.get("event_id").asText()),
                    head.getFullMessage());
            assertTrue(
                    head.getFullMessage().contains("Memoryd-Ledger-Head: " + (TestRoot.IMPORT_LINES + 1) + ":"),
                    head.getFullMessage());
        }
    }

    @Test
    void afterWrites_gitStatusIsClean() throws Exception {
        write(replace("Role", "One."));
        write(replace("Role", "Two."));
        root.daemon.close();
        try (Git g = Git.open(root.dir.toFile())) {
            Status s = g.status().call();
            assertTrue(
                    s.isClean(),
                    "untracked=" + s.getUntracked() + " modified=" + s.getModified() + " changed=" + s.getChanged()
                            + " added=" + s.getAdded());
        }
    }

    @Test
    void failingSecondOp_changesNothing() throws Exception {
        String before = root.file(CRITIC);
        int commits = commitCount();
        JsonNode r = write(replace("Role", "Valid change.") + "," + replace("No Such Section", "x"));
        assertEquals("unknown_section", r.get("error").get("data").get("reason").asText(), r.toString());
        assertEquals(1, r.get("error").get("data").get("op_index").asInt());
        assertEquals(before, root.file(CRITIC));
        assertEquals(commits, commitCount());
        assertEquals(
                1,
                root.call("history", "{\"path\":\"" + CRITIC + "\"}")
                        .get("result")
                        .get("events")
                        .size(),
                "only the example tree's import");
    }

    @Test
    void staleBeforeHash_conflictsWithCurrentHash() throws Exception {
        JsonNode read = root.call("read", "{\"path\":\"" + CRITIC + "\",\"section\":\"Role\"}")
                .get("result");
        String hash = read.get("hash").asText();
        write(replace("Role", "Changed by someone else."));
        JsonNode r = write("{\"op\":\"replace_section\",\"path\":\"" + CRITIC
                + "\",\"section\":\"Role\",\"content\":\"Mine.\",\"before_hash\":\"" + hash + "\"}");
        assertEquals("conflict", r.get("error").get("data").get("reason").asText(), r.toString());
        String current = root.call("read", "{\"path\":\"" + CRITIC + "\",\"section\":\"Role\"}")
                .get("result")
                .get("hash")
                .asText();
        assertEquals(current, r.get("error").get("data").get("current_hash").asText());
        assertTrue(root.file(CRITIC).contains("Changed by someone else."));
    }

    /**
     * The repeat's reply was byte for byte the first's: nothing said it was a replay, though the
     * protocol promises {@code idempotent_replay: true}. And an empty key was taken as a key, so
     * every later write with an empty key was answered as a replay of the first.
     */
    @Test
    void sameIdempotencyKey_returnsFirstResult_saysItIsAReplay_andRecordsNothingNew() throws Exception {
        String req = "{\"rationale\":\"r\",\"idempotency_key\":\"k-1\",\"ops\":[" + replace("Role", "Once.") + "]}";
        JsonNode a = root.call("write", req).get("result");
        assertFalse(a.has("idempotent_replay"), a.toString());
        int commits = commitCount();
        JsonNode b = root.call("write", req).get("result");
        assertEquals(a.get("commit"), b.get("commit"));
        assertEquals(a.get("events"), b.get("events"));
        assertTrue(b.path("idempotent_replay").asBoolean(), b.toString());
        assertEquals(commits, commitCount());

        JsonNode empty = root.call(
                "write", "{\"rationale\":\"r\",\"idempotency_key\":\"\",\"ops\":[" + replace("Role", "Twice.") + "]}");
        assertEquals("invalid_request", empty.at("/error/data/reason").asText(), empty.toString());
        assertEquals("params.idempotency_key", empty.at("/error/data/field").asText(), empty.toString());
        assertEquals(commits, commitCount(), "nothing written");
    }

    /**
     * A key sent again with other ops was answered with the first declaration's result, as if the
     * new ops were written: now it is refused naming the key, while the same declaration sent
     * again still gets its first result, also once the daemon restarted (keys come back from the
     * ledger).
     */
    @Test
    void anIdempotencyKeySentAgainWithOtherOps_isRefusedNamingTheKey_beforeAndAfterARestart() throws Exception {
        String first = "{\"rationale\":\"r\",\"idempotency_key\":\"k-2\",\"ops\":[" + replace("Role", "Once.") + "]}";
        String[] others = {
            "{\"rationale\":\"r\",\"idempotency_key\":\"k-2\",\"ops\":[" + replace("Role", "Something else.") + "]}",
            "{\"rationale\":\"another reason\",\"idempotency_key\":\"k-2\",\"ops\":[" + replace("Role", "Once.") + "]}",
        };
        JsonNode a = root.call("write", first).get("result");
        int commits = commitCount();
        for (int round = 0; round < 2; round++) {
            for (String other : others) {
                JsonNode r = root.call("write", other);
                assertEquals("invalid_request", r.at("/error/data/reason").asText(), round + ": " + r);
                assertEquals("params.idempotency_key", r.at("/error/data/field").asText(), r.toString());
                assertTrue(r.at("/error/message").asText().contains("k-2"), r.toString());
            }
            assertTrue(root.file(CRITIC).contains("Once."));
            assertFalse(root.file(CRITIC).contains("Something else."));
            assertEquals(commits, commitCount());
            JsonNode again = root.call("write", first).get("result");
            assertEquals(a.get("events"), again.get("events"), "the same declaration: its first result");
            root.daemon.close();
            root.serveAsIs();
        }
    }

    @Test
    void noOpDeclaration_makesNoCommit_andSaysSo() throws Exception {
        write(replace("Role", "Stable."));
        int commits = commitCount();
        JsonNode r = write(replace("Role", "Stable.")).get("result");
        assertFalse(r.get("changed").asBoolean());
        assertTrue(r.get("message").asText().contains("no commit"));
        assertEquals(commits, commitCount());
    }

    @Test
    void concurrentClients_allAcknowledgedWritesPresent_ledgerVerifies() throws Exception {
        ExecutorService ex = Executors.newFixedThreadPool(8);
        List<Future<JsonNode>> fs = new java.util.ArrayList<>();
        for (int c = 0; c < 8; c++) {
            final int client = c;
            fs.add(ex.submit(() -> {
                JsonNode last = null;
                try (SocketClient sc = root.client()) {
                    for (int i = 0; i < 25; i++) {
                        last = sc.call(
                                "write",
                                TestRoot.json("{\"rationale\":\"c\",\"ops\":[{\"op\":\"append_item\",\"path\":\""
                                        + CRITIC + "\",\"section\":\"Triggers\",\"item\":\"client " + client + " item "
                                        + i + "\"}]}"));
                        assertTrue(last.has("result"), last.toString());
                    }
                }
                return last;
            }));
        }
        for (Future<JsonNode> f : fs) {
            f.get();
        }
        ex.shutdown();
        String text = root.file(CRITIC);
        for (int c = 0; c < 8; c++) {
            for (int i = 0; i < 25; i++) {
                assertTrue(text.contains("client " + c + " item " + i + "\n"), "missing client " + c + " item " + i);
            }
        }
        JsonNode v = root.call("ledger.verify", null).get("result");
        assertTrue(v.get("ok").asBoolean(), v.toString());
        assertEquals(TestRoot.IMPORT_LINES + 200, v.get("lines").asInt());
    }

    @Test
    void createEntity_createsProfileAndNotes_thatLintClean() throws Exception {
        JsonNode r = write(
                "{\"op\":\"create_entity\",\"user_id\":\"sam\",\"entity_type\":\"part\",\"entity_id\":\"planner\",\"title\":\"The Planner\"}");
        assertTrue(r.has("result"), r.toString());
        assertTrue(Files.exists(root.dir.resolve("users/sam/parts/planner/profile.md")));
        assertTrue(Files.exists(root.dir.resolve("users/sam/parts/planner/notes.md")));
        JsonNode lint = root.call("lint", null).get("result");
        assertEquals(0, lint.get("problems").size(), lint.toString());
    }

    static String section(String text, String heading) {
        int i = text.indexOf(heading + "\n");
        int j = text.indexOf("\n## ", i + 1);
        return text.substring(i, j < 0 ? text.length() : j);
    }
}
