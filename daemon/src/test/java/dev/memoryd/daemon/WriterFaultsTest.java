package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.AppendItem;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpParse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The writer under faults: a declaration no ledger line can hold is refused alone; a batch that
 * fails on the disk is undone before anyone hears "nothing was recorded", and writes resume by
 * themselves once the cause is gone; the index is in step with the branch at every
 * acknowledgement; modes humans committed survive memoryd's commits.
 */
class WriterFaultsTest extends ServedRootTest {
    static final String CRITIC = WriteEndToEndTest.CRITIC;

    private static WriteRequest append(String item, String rationale) throws Exception {
        OpParse p = OpCodec.parse(TestRoot.json("{\"op\":\"append_item\",\"path\":\"" + CRITIC
                + "\",\"section\":\"Open Questions\",\"item\":\"" + item + "\"}"));
        return new WriteRequest(List.of(((OpParse.Ok) p).op()), rationale, "tester", null, null);
    }

    private long chainLines() throws Exception {
        try (java.util.stream.Stream<Path> s = Files.walk(root.dir.resolve("ledger/main"))) {
            long n = 0;
            for (Path f : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                n += Files.readAllLines(f).size();
            }
            return n;
        }
    }

    private String head() throws Exception {
        return root.git("rev-parse", "HEAD").strip();
    }

    @Test
    void aDeclarationNoLedgerLineCanHold_isRefusedAlone_andTheBatchAroundItIsRecorded() throws Exception {
        List<CompletableFuture<WriteOutcome>> fs = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            // Submitted in-process, past the protocol edge, so the writer itself must cope.
            fs.add(root.daemon.service().write(append("item " + i, i == 5 ? "bad \ud800 rationale" : "r")));
        }
        for (int i = 0; i < 12; i++) {
            WriteOutcome o = fs.get(i).get();
            if (i == 5) {
                WriteOutcome.Rejected r = assertInstanceOf(WriteOutcome.Rejected.class, o);
                assertEquals(ErrorReason.INVALID_REQUEST, r.failure().reason());
                assertTrue(
                        r.failure().message().contains("rationale"), r.failure().message());
            } else {
                assertInstanceOf(WriteOutcome.Committed.class, o, "declaration " + i);
            }
        }
        assertInstanceOf(
                WriteOutcome.Committed.class,
                root.daemon.service().write(append("after", "r")).get());
        root.close();
        root.serve();
        String text = root.file(CRITIC);
        for (int i = 0; i < 12; i++) {
            assertEquals(i != 5, text.contains("- item " + i + "\n"), "item " + i);
        }
        assertTrue(text.contains("- after\n"));
    }

    @Test
    void aLineRecordedBeforeTheControlCharacterRule_replaysByteForByte() throws Exception {
        // What an older build accepted is in the ledger for good: replay must redo it, not halt on it.
        AppendItem old = new AppendItem(
                dev.memoryd.grammar.RepoPath.of(CRITIC), "Open Questions", "a bell \u0007 rang", null, List.of(), null);
        WriteRequest req = new WriteRequest(List.of(old), "recorded by an older build", "tester", null, null);
        assertInstanceOf(
                WriteOutcome.Committed.class, root.daemon.service().write(req).get());
        JsonNode replay = root.call("replay", "{\"verify\":true}");
        assertTrue(replay.path("result").path("ok").asBoolean(), replay.toString());
        root.close();
        root.serve();
        assertTrue(root.file(CRITIC).contains("- a bell \u0007 rang\n"));
        assertTrue(root.call("ledger.verify", null).path("result").path("ok").asBoolean());
    }

    @Test
    void anImmutableObjectsDirectory_refusesWithTheCause_recordsNothing_andWritesResumeOnceItIsGone() throws Exception {
        Path packs = root.dir.resolve(".git/objects/pack");
        Files.createDirectories(packs);
        assertFaultHeals(packs);
    }

    @Test
    void anImmutableBranchRefDirectory_refusesWithTheCause_recordsNothing_andWritesResumeOnceItIsGone()
            throws Exception {
        assertFaultHeals(root.dir.resolve(".git/refs/heads"));
    }

    @Test
    void anImmutableUserDirectory_refusesWithTheCause_recordsNothing_andWritesResumeOnceItIsGone() throws Exception {
        assertFaultHeals(root.dir.resolve(CRITIC).getParent());
    }

    private void assertFaultHeals(Path dir) throws Exception {
        long lines = chainLines();
        String head = head();
        String text = root.file(CRITIC);
        TestRoot.chattr("+i", dir);
        try {
            JsonNode r = root.call(
                    "write",
                    "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                            + "\",\"section\":\"Open Questions\",\"item\":\"refused\"}]}");
            JsonNode err = r.get("error");
            assertTrue(err != null, r.toString());
            assertEquals("unavailable", err.get("data").get("reason").asText(), r.toString());
            assertTrue(err.get("message").asText().contains("nothing was recorded"), r.toString());
            assertEquals(lines, chainLines(), "the refused declaration's lines are cut off");
            assertEquals(head, head());
            assertEquals(text, root.file(CRITIC));
            assertEquals("", root.git("status", "--porcelain"), "the index stages nothing of the refused batch");
            JsonNode ping = root.call("ping", null).get("result");
            assertEquals("failing", ping.get("writer").get("state").asText(), ping.toString());
        } finally {
            TestRoot.chattr("-i", dir);
        }
        JsonNode ok = root.call(
                "write",
                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                        + "\",\"section\":\"Open Questions\",\"item\":\"accepted\"}]}");
        assertTrue(ok.has("result"), ok.toString());
        assertEquals(
                "ok",
                root.call("ping", null).get("result").get("writer").get("state").asText());
        root.close();
        root.serve();
        String after = root.file(CRITIC);
        assertFalse(after.contains("- refused\n"), "a restart must not redo what the reply said was not recorded");
        assertTrue(after.contains("- accepted\n"));
        assertEquals("", root.git("status", "--porcelain"));
    }

    @Test
    void aKeyRotationTheDiskRefuses_isNotRecorded_theRetiringKeySignsOn_andTheReplySaysSo() throws Exception {
        Path keyFile = root.cfg.keyFile();
        int before = dev.memoryd.ledger.KeyRing.loadExisting(keyFile).current();
        long lines = chainLines();
        Path packs = root.dir.resolve(".git/objects/pack");
        Files.createDirectories(packs);
        TestRoot.chattr("+i", packs);
        JsonNode r;
        try {
            r = root.call("ledger.rotate_key", null);
        } finally {
            TestRoot.chattr("-i", packs);
        }
        JsonNode err = r.get("error");
        assertTrue(err != null, "the rotation's commit could not be made: " + r);
        assertEquals("unavailable", err.at("/data/reason").asText(), r.toString());
        assertEquals(false, err.at("/data/recorded").asBoolean(true), "the reply must not say 'unknown': " + r);
        assertTrue(err.get("message").asText().contains("nothing was recorded"), r.toString());
        assertEquals(lines, chainLines(), "the rotation's line is cut off");
        assertEquals(
                before,
                dev.memoryd.ledger.KeyRing.loadExisting(keyFile).current(),
                "the retiring key is current again");

        assertTrue(root.call(
                        "write",
                        "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                                + "\",\"section\":\"Open Questions\",\"item\":\"after the refused rotation\"}]}")
                .has("result"));
        JsonNode again = root.call("ledger.rotate_key", null);
        assertTrue(again.has("result"), "a rotation once the disk takes it: " + again);
        assertTrue(root.call("ledger.verify", null).path("result").path("ok").asBoolean());
        root.close();
        root.serve();
        assertTrue(root.call("ledger.verify", null).path("result").path("ok").asBoolean());
        assertTrue(root.file(CRITIC).contains("- after the refused rotation\n"));
        assertTrue(root.call(
                        "write",
                        "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                                + "\",\"section\":\"Open Questions\",\"item\":\"after a restart\"}]}")
                .has("result"));
        assertTrue(root.call("ledger.verify", null).path("result").path("ok").asBoolean());
    }

    @Test
    void theIndexIsInStepWithTheBranch_atEveryAcknowledgement() throws Exception {
        for (int i = 0; i < 12; i++) {
            String op = i % 3 == 2
                    ? "{\"op\":\"create_entity\",\"user_id\":\"sam\",\"entity_type\":\"part\",\"entity_id\":\"p" + i
                            + "\",\"title\":\"Part " + i + "\"}"
                    : "{\"op\":\"append_item\",\"path\":\"" + CRITIC + "\",\"section\":\"Open Questions\",\"item\":\"q"
                            + i + "\"}";
            JsonNode r = root.call("write", "{\"rationale\":\"r\",\"ops\":[" + op + "]}");
            assertTrue(r.has("result"), r.toString());
            assertEquals("", root.git("status", "--porcelain"), "right after write " + i);
        }
    }

    private JsonNode appendTo(String path, String item) throws Exception {
        JsonNode r = root.call(
                "write",
                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + path
                        + "\",\"section\":\"Triggers\",\"item\":\"" + item + "\"}]}");
        assertTrue(r.has("result"), r.toString());
        return r;
    }

    @Test
    void anIndexThatCouldNotBeWritten_isBroughtInStepByTheNextWrite() throws Exception {
        String young = "users/sam/parts/young-one/profile.md";
        appendTo(CRITIC, "before");
        Path index = root.dir.resolve(".git/index");
        TestRoot.chattr("+i", index); // the batch publishes; only the index cannot be replaced
        try {
            appendTo(young, "while the index is stuck");
        } finally {
            TestRoot.chattr("-i", index);
        }
        assertTrue(root.file(young).contains("- while the index is stuck\n"));
        appendTo(CRITIC, "after");
        assertEquals("", root.git("status", "--porcelain"), "right after the next write's acknowledgement");
    }

    @Test
    void anIndexThatCouldNotBeWritten_isBroughtInStepOnceWritesPause() throws Exception {
        Path index = root.dir.resolve(".git/index");
        TestRoot.chattr("+i", index);
        try {
            appendTo(CRITIC, "while the index is stuck");
        } finally {
            TestRoot.chattr("-i", index);
        }
        assertEquals("", root.statusOnceQuiet(5_000), "once writes pause");
    }

    @Test
    void aBatchAGitCommandLockedOut_leavesNoTraceInTheIndex() throws Exception {
        appendTo(CRITIC, "before");
        Path lock = root.dir.resolve(".git/index.lock");
        Files.writeString(lock, ""); // a git command that keeps the index past the writer's wait
        JsonNode refused;
        try {
            refused = root.call(
                    "write",
                    "{\"rationale\":\"r\",\"ops\":[{\"op\":\"create_entity\",\"user_id\":\"sam\","
                            + "\"entity_type\":\"part\",\"entity_id\":\"locked-out\",\"title\":\"Locked out\"}]}");
        } finally {
            Files.delete(lock);
        }
        assertTrue(refused.has("error"), refused.toString());
        assertEquals(
                "unavailable", refused.get("error").get("data").get("reason").asText(), refused.toString());
        appendTo(CRITIC, "after");
        assertEquals("", root.git("status", "--porcelain"), "the refused batch's files are not in the index");
        assertFalse(Files.exists(root.dir.resolve("users/sam/parts/locked-out/profile.md")));
    }

    @Test
    void modesHumansCommitted_surviveMemorydsCommits() throws Exception {
        Path script = root.dir.resolve("tools/run.sh");
        Files.createDirectories(script.getParent());
        Files.writeString(script, "#!/bin/sh\necho hi\n");
        script.toFile().setExecutable(true);
        Files.createSymbolicLink(root.dir.resolve("notes-link"), Path.of("tools/run.sh"));
        root.dir.resolve(CRITIC).toFile().setExecutable(true);
        root.git("add", "-A");
        root.git("commit", "-q", "-m", "a script, a link and an executable profile");
        JsonNode r = root.call(
                "write",
                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                        + "\",\"section\":\"Open Questions\",\"item\":\"kept\"}]}");
        assertTrue(r.has("result"), r.toString());
        String tree = root.git("ls-tree", "-r", "HEAD");
        assertTrue(tree.contains("100755 blob") && tree.contains("\ttools/run.sh"), tree);
        assertTrue(tree.lines().anyMatch(l -> l.startsWith("120000 blob") && l.endsWith("\tnotes-link")), tree);
        assertTrue(tree.lines().anyMatch(l -> l.startsWith("100755 blob") && l.endsWith("\t" + CRITIC)), tree);
        assertTrue(Files.isExecutable(root.dir.resolve(CRITIC)), "the profile stays executable on disk");
        assertTrue(root.file(CRITIC).contains("- kept\n"));
        assertEquals("", root.git("status", "--porcelain"));
    }
}
