package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Humans under Git: scripted edits with real files and the real git CLI against a running
 * daemon. Each scenario ends with {@code replay --verify} clean (or, for drift, naming the file).
 */
class HumanEditTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    static final String YOUNG = "users/sam/parts/young-one/profile.md";

    @TempDir
    Path tmp;

    TestRoot root;

    private TestRoot root(boolean watch) throws Exception {
        return root(watch, 150);
    }

    private TestRoot root(boolean watch, long quietMs) throws Exception {
        root = new TestRoot(tmp).configure(c -> c.withWatch(Duration.ofMillis(quietMs), Duration.ofSeconds(60)));
        root.git("config", "user.name", "Sam Human");
        root.git("config", "user.email", "sam@example.com");
        if (watch) {
            String init = head();
            root.serveWatching();
            awaitCommitted(TestRoot.IMPORT_LINES, init, "the example import");
        } else {
            root.serve();
        }
        return root;
    }

    @AfterEach
    void close() {
        if (root != null) {
            root.close();
        }
    }

    private String head() {
        try {
            return root.git("rev-parse", "HEAD").strip();
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Waits until the ledger has {@code lines} lines and the branch moved past {@code headBefore}:
     * a capture's lines are durable a moment before its commit is published.
     */
    private void awaitCommitted(long lines, String headBefore, String what) throws InterruptedException {
        await(() -> ledgerLines() == lines && !head().equals(headBefore), what);
    }

    private long ledgerLines() {
        try {
            return root.call("ledger.verify", null).get("result").get("lines").asLong();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * The human commits a file of their own ({@code git add} it, then commit), then waits for the
     * watcher's quiet period and rescans, several times over, and a capture.
     */
    private void commitAFileOfTheirOwn() throws Exception {
        Files.writeString(root.dir.resolve("todo.txt"), "- call the clinic\n");
        root.git("add", "todo.txt");
        root.git("commit", "-qm", "human: a todo list");
        Thread.sleep(1_500);
        root.call("capture", null);
    }

    /** The open drift items. */
    private JsonNode driftItems() {
        try {
            return root.call("drift.list", null).get("result").get("items");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Waits until {@code n} drift items are open. */
    private void awaitDriftItems(int n, String what) throws InterruptedException {
        await(() -> driftItems().size() == n, what);
    }

    private static void await(BooleanSupplier c, String what) throws InterruptedException {
        long end = System.nanoTime() + 20_000_000_000L;
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /** git status is clean once the writer refreshed the index (it does so when writes pause). */
    private void awaitClean() throws InterruptedException {
        await(
                () -> {
                    try {
                        return root.git("status", "--porcelain").isBlank();
                    } catch (java.io.IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                "a clean git status");
    }

    private List<JsonNode> history(String path) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        root.call("history", "{\"path\":\"" + path + "\",\"limit\":1000}")
                .get("result")
                .get("events")
                .forEach(out::add);
        return out;
    }

    /** Stops the daemon and adds a paragraph to {@link #YOUNG}'s Needs by hand, as while it is down. */
    private void stopThenWriteNeedsByHand() throws Exception {
        root.daemon.close();
        root.daemon = null;
        edit(
                YOUNG,
                "## Needs\n<!-- @anchor: needs v1 -->\n",
                "## Needs\n<!-- @anchor: needs v1 -->\n\nQuiet mornings.\n");
    }

    /** Waits until the newest event of {@code path} is a human edit of section {@code anchor}. */
    private void awaitHumanEditOf(String path, String anchor, String what) throws InterruptedException {
        await(
                () -> {
                    try {
                        JsonNode last = history(path).get(0);
                        return last.get("op").asText().equals("human_edit")
                                && last.get("section_anchor").asText().equals(anchor);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                what);
    }

    private JsonNode replay() throws Exception {
        return root.call("replay", "{\"verify\":true}").get("result");
    }

    private void assertReplayClean() throws Exception {
        JsonNode r = replay();
        assertTrue(r.get("ok").asBoolean(), r.toString());
    }

    private void edit(String rel, String from, String to) throws Exception {
        Path f = root.dir.resolve(rel);
        String s = Files.readString(f);
        assertTrue(s.contains(from), "fixture text missing: " + from);
        Files.writeString(f, s.replace(from, to));
    }

    private JsonNode write(String opsJson) throws Exception {
        return root.call("write", "{\"rationale\":\"agent\",\"actor\":\"agent-1\",\"ops\":[" + opsJson + "]}");
    }

    /** A profile's text with its Change Log section taken out: an edit that breaks the grammar. */
    private static String withoutChangeLog(String profile) {
        return profile.substring(0, profile.indexOf("## Change Log"))
                + profile.substring(profile.indexOf("## Extensions"));
    }

    private static String append(String path, String section, String item) {
        return "{\"op\":\"append_item\",\"path\":\"" + path + "\",\"section\":\"" + section + "\",\"item\":\"" + item
                + "\"}";
    }

    @Test
    void atomicSave_tempThenRename_isOneHumanEdit_underTheGitIdentity() throws Exception {
        root(true);
        long before = ledgerLines();
        String headBefore = head();
        Path f = root.dir.resolve(CRITIC);
        Path tmpFile = f.resolveSibling(".profile.md.tmp123");
        Files.writeString(tmpFile, Files.readString(f).replace("strict teacher", "strict, tired teacher"));
        Files.move(tmpFile, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        awaitCommitted(before + 1, headBefore, "the capture");
        JsonNode e = history(CRITIC).get(0);
        assertEquals("human_edit", e.get("op").asText());
        assertEquals("identity", e.get("section_anchor").asText());
        assertEquals("human:Sam Human <sam@example.com>", e.get("actor").asText());
        assertEquals("work_tree", e.get("payload").get("human").get("source").asText());
        assertTrue(root.git("log", "-1", "--format=%an <%ae>").startsWith("Sam Human <sam@example.com>"));
        awaitClean();
        assertReplayClean();
    }

    @Test
    void vimStyleSave_backupRenameAndSwapFiles_captureOnlyTheEdit() throws Exception {
        root(true);
        long before = ledgerLines();
        String headBefore = head();
        Path f = root.dir.resolve(CRITIC);
        Path swap = f.resolveSibling(".profile.md.swp");
        Files.writeString(swap, "vim swap junk");
        String text = Files.readString(f);
        Path backup = f.resolveSibling("profile.md~");
        Files.move(f, backup);
        Files.writeString(f, text.replace("Protector.", "Protector, always on duty."));
        Files.delete(backup);
        Files.writeString(root.dir.resolve("users/sam/4913"), "");
        Files.delete(root.dir.resolve("users/sam/4913"));
        Files.delete(swap);
        awaitCommitted(before + 1, headBefore, "the capture");
        Thread.sleep(400); // nothing else may follow
        assertEquals(before + 1, ledgerLines());
        assertEquals("role", history(CRITIC).get(0).get("section_anchor").asText());
        assertReplayClean();
    }

    @Test
    void burstOfEdits_acrossFiles_isOneCommit_withNothingMissed() throws Exception {
        root(true, 1500); // the whole burst fits in the quiet period even on a loaded machine
        String head = root.git("rev-parse", "HEAD").strip();
        long before = ledgerLines();
        for (int i = 0; i < 50; i++) {
            edit(
                    i % 2 == 0 ? CRITIC : YOUNG,
                    i < 2 ? "## Open Questions\n<!-- @anchor: open-questions v1 -->\n" : "burst " + (i - 2),
                    i < 2 ? "## Open Questions\n<!-- @anchor: open-questions v1 -->\n\nburst " + i : "burst " + i);
        }
        awaitCommitted(before + 2, head, "the capture");
        Thread.sleep(500);
        assertEquals(before + 2, ledgerLines(), "one event per changed section of each file");
        assertTrue(root.file(CRITIC).contains("burst 48") && root.file(YOUNG).contains("burst 49"));
        assertEquals(1, root.git("rev-list", head + "..HEAD").strip().lines().count(), "one commit for the burst");
        assertReplayClean();
    }

    @Test
    void daemonsOwnWrites_areNeverCapturedAsHumanEdits() throws Exception {
        root(true);
        int n = Integer.getInteger("memoryd.ownWrites", 300);
        for (int i = 0; i < n; i++) {
            assertTrue(write(append(i % 2 == 0 ? CRITIC : YOUNG, "Triggers", "own write " + i))
                    .has("result"));
        }
        Thread.sleep(600); // past the quiet period: the watcher has looked at every file the daemon wrote
        root.call("capture", null);
        long human = 0;
        for (String p : List.of(CRITIC, YOUNG)) {
            JsonNode all = root.call("history", "{\"path\":\"" + p + "\",\"limit\":" + (n + 10) + "}")
                    .get("result")
                    .get("events");
            for (JsonNode e : all) {
                human += e.get("op").asText().equals("human_edit") ? 1 : 0;
            }
        }
        assertEquals(2, human, "only the example import of each file; none of " + n + " daemon writes");
        assertEquals(TestRoot.IMPORT_LINES + n, ledgerLines());
        assertReplayClean();
    }

    @Test
    void agentWrite_overUncapturedEdit_capturesTheHumanFirst_thenApplies() throws Exception {
        root(false);
        edit(CRITIC, "strict teacher", "strict, tired teacher");
        JsonNode w = write(append(CRITIC, "Triggers", "Deadlines"));
        assertTrue(w.has("result"), w.toString());
        List<JsonNode> h = history(CRITIC);
        assertEquals("append_item", h.get(0).get("op").asText());
        assertEquals("human_edit", h.get(1).get("op").asText());
        assertEquals("identity", h.get(1).get("section_anchor").asText());
        assertTrue(h.get(1).get("seq").asLong() < h.get(0).get("seq").asLong());
        String text = root.file(CRITIC);
        assertTrue(text.contains("strict, tired teacher") && text.contains("- Deadlines\n"));
        assertTrue(root.git("log", "-2", "--format=%an").contains("Sam Human"));
        assertReplayClean();
    }

    @Test
    void agentWrite_toTheSectionTheHumanChanged_isConflict_andTheHumanEditIsKept() throws Exception {
        root(false);
        edit(CRITIC, "- Client feedback emails", "- Client feedback emails, especially late at night");
        long before = ledgerLines();
        JsonNode w = write(append(CRITIC, "Triggers", "Deadlines"));
        assertEquals("conflict", w.get("error").get("data").get("reason").asText(), w.toString());
        assertEquals("triggers", w.get("error").get("data").get("section").asText());
        assertEquals(before + 1, ledgerLines(), "the human's edit is recorded; the agent's is not");
        assertTrue(root.file(CRITIC).contains("especially late at night"));
        assertFalse(root.file(CRITIC).contains("Deadlines"));
        assertReplayClean();
    }

    @Test
    void grammarBreak_goesToDrift_agentsGetDrift_acceptCurrentMakesReplayCleanAgain() throws Exception {
        root(false);
        String good = root.file(CRITIC);
        Files.writeString(root.dir.resolve(CRITIC), withoutChangeLog(good));
        JsonNode w = write(append(CRITIC, "Triggers", "Deadlines"));
        assertEquals("drift", w.get("error").get("data").get("reason").asText(), w.toString());
        String id = w.get("error").get("data").get("drift_id").asText();
        JsonNode list = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, list.size());
        assertEquals(CRITIC, list.get(0).get("path").asText());
        assertEquals("grammar_broken", list.get(0).get("kind").asText());
        JsonNode show = root.call("drift.show", "{\"id\":\"" + id + "\"}").get("result");
        assertTrue(
                show.get("diff").asText().contains("-## Change Log"),
                show.get("diff").asText());
        assertEquals("differs", replay().get("differences").get(0).get("kind").asText());
        assertTrue(root.call("write", "{\"rationale\":\"x\",\"ops\":[" + append(CRITIC, "Needs", "x") + "]}")
                .get("error")
                .get("data")
                .get("reason")
                .asText()
                .equals("drift"));

        // the queue survives a restart
        root.daemon.close();
        root.serve();
        assertEquals(1, root.call("drift.list", null).get("result").get("items").size());

        JsonNode r = root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"accept_current\"}");
        assertTrue(r.has("result"), r.toString());
        assertEquals(0, root.call("drift.list", null).get("result").get("items").size());
        assertReplayClean();
        awaitClean();
    }

    @Test
    void restore_writesTheRecordedTextBack_andTheDriftedTextStaysInTheLedger() throws Exception {
        root(false);
        String good = root.file(YOUNG);
        Files.writeString(
                root.dir.resolve(YOUNG),
                good.replace("<!-- @anchor: needs v1 -->\n", "").replace("## Needs", "## Things it needs (my words)"));
        root.call("capture", "{\"paths\":[\"" + YOUNG + "\"]}");
        JsonNode items = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, items.size());
        String id = items.get(0).get("id").asText();
        assertTrue(root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"restore\"}")
                .has("result"));
        assertEquals(good, root.file(YOUNG));
        assertInADriftEvent(YOUNG, "Things it needs (my words)");
        assertReplayClean();
    }

    /** Saves {@code human} as the young one's profile, captures it, and returns the one drift item it opened. */
    private String driftOnYoung(String human) throws Exception {
        Files.writeString(root.dir.resolve(YOUNG), human);
        root.call("capture", "{\"paths\":[\"" + YOUNG + "\"]}");
        JsonNode items = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, items.size(), items.toString());
        return items.get(0).get("id").asText();
    }

    @Test
    void aReadOfAFileHoldingAnUnrecordedEdit_namesItsDriftItem_untilTheItemIsResolved() throws Exception {
        root(false);
        String good = root.file(YOUNG);
        String human = good.replace("## Needs", "## Things it needs");
        String id = driftOnYoung(human);
        JsonNode read = root.call("read", "{\"path\":\"" + YOUNG + "\"}").get("result");
        assertEquals(human, read.get("content").asText(), "read as it is on disk");
        assertEquals(id, read.path("drift").asText(null), read.toString());
        JsonNode section = root.call("read", "{\"path\":\"" + YOUNG + "\",\"section\":\"Identity\"}")
                .get("result");
        assertEquals(id, section.path("drift").asText(null), "a section's read names it too");
        JsonNode atHead = root.call("read", "{\"path\":\"" + YOUNG + "\",\"at\":\"HEAD\"}")
                .get("result");
        assertFalse(atHead.has("drift"), "a commit's text holds no unrecorded edit");
        assertFalse(
                root.call("read", "{\"path\":\"" + CRITIC + "\"}").get("result").has("drift"));
        assertTrue(root.call(
                        "drift.resolve",
                        "{\"id\":\"" + id + "\",\"resolution\":\"restore\",\"actor\":\"human:Sam <sam@example.org>\"}")
                .has("result"));
        JsonNode after = root.call("read", "{\"path\":\"" + YOUNG + "\"}").get("result");
        assertFalse(after.has("drift"), after.toString());
        assertEquals(good, after.get("content").asText());
    }

    @Test
    void anItemResolvedAlready_isSaidToBe_withHowAndByWhom_alsoAfterARestart() throws Exception {
        root(false);
        String id = driftOnYoung(root.file(YOUNG).replace("## Needs", "## Things it needs"));
        String resolve = "{\"id\":\"" + id + "\",\"resolution\":\"restore\",\"actor\":\"human:Sam <sam@example.org>\"}";
        assertTrue(root.call("drift.resolve", resolve).has("result"));
        for (int life = 0; life < 2; life++) {
            JsonNode again = root.call("drift.resolve", resolve).get("error");
            assertEquals("not_found", again.get("data").get("reason").asText(), again.toString());
            String m = again.get("message").asText();
            assertTrue(m.contains("resolved already") && m.contains("restore by human:Sam <sam@example.org>"), m);
            String shown = root.call("drift.show", "{\"id\":\"" + id + "\"}")
                    .get("error")
                    .get("message")
                    .asText();
            assertTrue(shown.contains("resolved already"), shown);
            root.daemon.close();
            root.serve();
        }
        String never = root.call("drift.show", "{\"id\":\"d-none\"}")
                .get("error")
                .get("message")
                .asText();
        assertTrue(never.startsWith("no open drift item d-none"), never);
    }

    /**
     * Words typed into the drifted file after its item was recorded, then a restore (or a dismiss)
     * before they were captured: the restore wrote the recorded text over them and they were in
     * no event. Now the resolution is refused as a conflict until the item holds the file as it
     * is; once captured (the watcher's next look, here a capture), the restore goes ahead and the
     * words are in the ledger.
     */
    @Test
    void restoreOrDismiss_ofAFileEditedSinceItsItem_isAConflict_andLosesNoWord() throws Exception {
        root(false);
        String good = root.file(YOUNG);
        String drifted = good.replace("<!-- @anchor: needs v1 -->\n", "").replace("## Needs", "## Things it needs");
        Files.writeString(root.dir.resolve(YOUNG), drifted);
        root.call("capture", "{\"paths\":[\"" + YOUNG + "\"]}");
        String id = root.firstDriftId();
        String typed = drifted.replace("## Things it needs\n", "## Things it needs\nWords typed a moment later.\n");
        assertNotEquals(drifted, typed);
        Files.writeString(root.dir.resolve(YOUNG), typed);
        for (String how : List.of("restore", "dismiss")) {
            JsonNode r = root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"" + how + "\"}");
            assertEquals("conflict", r.at("/error/data/reason").asText(), how + ": " + r);
            assertTrue(r.at("/error/message").asText().contains("drift show " + id), r.toString());
            assertEquals(typed, root.file(YOUNG), how + " left the file as it is");
        }
        root.call("capture", "{\"paths\":[\"" + YOUNG + "\"]}");
        assertTrue(root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"restore\"}")
                .has("result"));
        assertEquals(good, root.file(YOUNG));
        assertInADriftEvent(YOUNG, "Words typed a moment later.");
        assertReplayClean();
    }

    /** Fails unless a {@code drift_flagged} event of {@code path} holds {@code words} in its drifted text. */
    private void assertInADriftEvent(String path, String words) throws Exception {
        assertTrue(
                history(path).stream()
                        .anyMatch(e -> e.get("op").asText().equals("drift_flagged")
                                && e.at("/payload/drift/text").asText().contains(words)),
                "no drift event of " + path + " holds: " + words);
    }

    @Test
    void reanchor_renamesTheSectionBack_andRecordsTheHumansWords() throws Exception {
        root(false);
        edit(CRITIC, "## Role\n", "## Job\n");
        edit(CRITIC, "Protector.", "Protector, mostly.");
        root.call("capture", null);
        String id = root.firstDriftId();
        JsonNode bad = root.call(
                "drift.resolve",
                "{\"id\":\"" + id + "\",\"resolution\":\"reanchor\",\"from\":\"Job\",\"to\":\"Nope\"}");
        assertEquals(
                "unknown_section", bad.get("error").get("data").get("reason").asText(), bad.toString());
        JsonNode ok = root.call(
                "drift.resolve",
                "{\"id\":\"" + id + "\",\"resolution\":\"reanchor\",\"from\":\"Job\",\"to\":\"Role\"}");
        assertTrue(ok.has("result"), ok.toString());
        assertTrue(root.file(CRITIC).contains("## Role\n<!-- @anchor: role v1 -->\n\nProtector, mostly."));
        assertTrue(write(append(CRITIC, "Triggers", "after reanchor")).has("result"));
        assertReplayClean();
    }

    @Test
    void dismiss_closesTheItem_andTheSameTextIsNotFlaggedAgain() throws Exception {
        root(false);
        edit(CRITIC, "## Role\n", "## Job\n");
        root.call("capture", null);
        String id = root.firstDriftId();
        assertTrue(root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"dismiss\"}")
                .has("result"));
        root.call("capture", null);
        assertEquals(0, root.call("drift.list", null).get("result").get("items").size());
        assertEquals(
                "not_found",
                root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"dismiss\"}")
                        .get("error")
                        .get("data")
                        .get("reason")
                        .asText());
    }

    /**
     * A text a maintainer dismissed stays on disk, unrecorded (it breaks the grammar): an agent's
     * write to that file took it as its base and committed the human's words under the agent's
     * name, with no event of theirs, and replay then differed.
     */
    @Test
    void anAgentWriteToAFileWhoseDriftWasDismissed_isRefused_andNothingOfTheHumansTextIsCommittedAsTheAgents()
            throws Exception {
        root(false);
        edit(CRITIC, "## Role\n", "## Job\n");
        edit(CRITIC, "strict teacher", "strict teacher (SAM WROTE THIS)");
        root.call("capture", null);
        String id = root.firstDriftId();
        assertTrue(root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"dismiss\"}")
                .has("result"));
        String head = root.git("rev-parse", "HEAD").strip();

        JsonNode r = write(append(CRITIC, "Triggers", "the agent's item"));

        assertEquals("drift", r.at("/error/data/reason").asText(), r.toString());
        assertEquals(CRITIC, r.at("/error/data/path").asText(), r.toString());
        assertTrue(r.at("/error/message").asText().contains("dismissed"), r.toString());
        assertEquals(head, root.git("rev-parse", "HEAD").strip(), "nothing committed");
        assertFalse(
                root.git("show", "HEAD:" + CRITIC).contains("SAM WROTE THIS"), "the branch keeps the recorded text");
        assertTrue(
                root.file(CRITIC).contains("SAM WROTE THIS")
                        && root.file(CRITIC).contains("## Job"),
                "the human's text stays on disk");
        assertTrue(write(append(YOUNG, "Triggers", "another file takes writes")).has("result"));

        edit(CRITIC, "## Job\n", "## Role\n"); // the human fixes the file: it is recorded, then writes go on
        root.call("capture", null);
        assertTrue(write(append(CRITIC, "Triggers", "the agent's item")).has("result"));
        assertTrue(root.git("show", "HEAD:" + CRITIC).contains("SAM WROTE THIS"));
        assertReplayClean();
    }

    /**
     * A save that changed only line ends (CRLF) recorded a {@code human_edit} on every section,
     * each with the same hash before and after, so every section's history named the human as its
     * last editor though no word changed. The bytes are still recorded (replay gives them back),
     * under no section.
     */
    @Test
    void aSaveThatChangesOnlyLineEnds_namesNoSectionsEditor_andReplaysByteForByte() throws Exception {
        root(false);
        assertTrue(write(append(CRITIC, "Triggers", "written by the agent")).has("result"));
        Path f = root.dir.resolve(CRITIC);
        Files.writeString(f, Files.readString(f).replace("\n", "\r\n"));
        root.call("capture", null);

        JsonNode triggers = root.call("history", "{\"path\":\"" + CRITIC + "\",\"section\":\"triggers\",\"limit\":1}")
                .at("/result/events/0");
        assertEquals("append_item", triggers.path("op").asText(), "the agent stays the last editor: " + triggers);
        JsonNode file = root.call("history", "{\"path\":\"" + CRITIC + "\",\"limit\":1}")
                .at("/result/events/0");
        assertEquals("human_edit", file.path("op").asText(), "the file's history has the save: " + file);
        assertTrue(file.path("section_anchor").isNull(), file.toString());
        assertEquals(file.path("before_hash"), file.path("after_hash"), file.toString());
        assertTrue(root.git("show", "HEAD:" + CRITIC).contains("\r\n"), "the branch holds the bytes saved");
        assertReplayClean();
    }

    @Test
    void gitCommit_whileTheDaemonRuns_isCapturedReferringToTheCommit() throws Exception {
        // The save is committed before the watcher's quiet period ends even on a loaded machine: the
        // commit, not the save, is what gets captured (with 150 ms a loaded machine's git took longer).
        root(true, 10_000);
        long before = ledgerLines();
        edit(
                YOUNG,
                "## Needs\n<!-- @anchor: needs v1 -->\n",
                "## Needs\n<!-- @anchor: needs v1 -->\n\nQuiet mornings.\n");
        root.git("-c", "user.name=Alice", "-c", "user.email=alice@example.com", "commit", "-qam", "alice: needs");
        // Found by its message: on a loaded machine memoryd's capture can land before a look at HEAD.
        String commit = root.git("log", "-1", "--format=%H", "--fixed-strings", "--grep=alice: needs")
                .strip();
        awaitCommitted(before + 1, commit, "the commit's capture");
        JsonNode e = history(YOUNG).get(0);
        assertEquals("human_edit", e.get("op").asText());
        assertEquals("human:Alice <alice@example.com>", e.get("actor").asText());
        assertEquals("commit", e.get("payload").get("human").get("source").asText());
        assertEquals(
                commit,
                e.get("payload").get("human").get("commits").get(0).get("id").asText());
        assertEquals(commit, root.git("rev-parse", "HEAD~1").strip(), "memoryd's commit sits on the human's");
        assertReplayClean();
    }

    @Test
    void gitCommits_whileTheDaemonWasDown_areCapturedAtStart() throws Exception {
        root(false);
        stopThenWriteNeedsByHand();
        root.git("-c", "user.name=Bob", "-c", "user.email=bob@example.com", "commit", "-qam", "bob: offline");
        edit(CRITIC, "strict teacher", "strict old teacher"); // and one left uncommitted
        root.configure(c -> c.withWatch(Duration.ofMillis(100), Duration.ofSeconds(60)))
                .serveWatching();
        awaitHumanEditOf(CRITIC, "identity", "the uncommitted edit");
        JsonNode bob = history(YOUNG).get(0);
        assertEquals("human:Bob <bob@example.com>", bob.get("actor").asText());
        assertReplayClean();
    }

    /**
     * A human's {@code git commit --amend} of memoryd's last commit while the daemon was down: the
     * amended commit keeps memoryd's ledger trailer, but its files hold the human's change too.
     * At the start that change is captured as the human's edit, so history shows it and replay
     * matches the branch. Before, the trailer made the amended commit count as memoryd's own, its
     * files as recorded: the change was never captured, and replay --verify reported the section
     * as differing for good.
     */
    @Test
    void anAmendOfMemorydsLastCommit_whileTheDaemonWasDown_isCapturedAtStart() throws Exception {
        root(false);
        JsonNode w = write(append(YOUNG, "Triggers", "Deadlines"));
        assertTrue(w.has("result"), w.toString());
        stopThenWriteNeedsByHand();
        root.git("commit", "-qa", "--amend", "--no-edit");
        assertTrue(root.git("log", "-1", "--format=%B").contains("Memoryd-Ledger-Head"), "the trailer stays");
        root.configure(c -> c.withWatch(Duration.ofMillis(100), Duration.ofSeconds(60)))
                .serveWatching();
        root.call("capture", null);
        awaitHumanEditOf(YOUNG, "needs", "the amended change captured");
        assertEquals(
                "human:Sam Human <sam@example.com>",
                history(YOUNG).get(0).get("actor").asText());
        assertTrue(root.git("show", "HEAD:" + YOUNG).contains("Quiet mornings."), "the change stays at HEAD");
        assertTrue(root.git("show", "HEAD:" + YOUNG).contains("- Deadlines\n"), "and the agent's item");
        assertReplayClean();
    }

    /**
     * A human's {@code git commit --amend -m} of memoryd's last commit while the daemon runs: the
     * amended commit has the human's message (no ledger trailer) and a tree made from the index,
     * which holds memoryd's last write and its ledger line besides the human's staged change. The
     * branch no longer contains memoryd's commit, but nothing was taken off it: the write is not
     * redone, the agent's item is in the file once, and only the human's change is captured as
     * theirs. Before, the declaration was redone on top, and the item stood in the file twice.
     */
    @Test
    void anAmendOfMemorydsLastCommitWithANewMessage_keepsEachAgentWriteOnce() throws Exception {
        root(true, 10_000); // the human's save is committed by their amend, not by the watcher's capture
        assertTrue(write(append(YOUNG, "Triggers", "Deadlines")).has("result"));
        assertTrue(write(append(YOUNG, "Triggers", "Crowds")).has("result"));
        awaitClean();
        long lines = ledgerLines();
        edit(CRITIC, "strict teacher", "strict, amended teacher");
        root.git("add", CRITIC);
        root.git("commit", "-q", "--amend", "-m", "Sam's amend");
        awaitHumanEditOf(CRITIC, "identity", "the amended change captured");
        assertAgentItemsOnce();
        assertEquals(
                lines + 1,
                ledgerLines(),
                "the human's edit alone was recorded: " + history(YOUNG).get(0));
        assertEquals(
                "human:Sam Human <sam@example.com>",
                history(CRITIC).get(0).get("actor").asText());
        assertTrue(write(append(YOUNG, "Triggers", "Noise")).has("result"), "writes go on");
        awaitClean();
        assertReplayClean();
    }

    /** As above, the amend made while the daemon was down: the start redoes nothing. */
    @Test
    void anAmendOfMemorydsLastCommitWithANewMessage_whileTheDaemonWasDown_keepsEachAgentWriteOnce() throws Exception {
        root(false);
        assertTrue(write(append(YOUNG, "Triggers", "Deadlines")).has("result"));
        assertTrue(write(append(YOUNG, "Triggers", "Crowds")).has("result"));
        long lines = ledgerLines();
        root.daemon.close();
        root.daemon = null;
        edit(CRITIC, "strict teacher", "strict, amended teacher");
        root.git("add", CRITIC);
        root.git("commit", "-q", "--amend", "-m", "Sam's amend");
        root.configure(c -> c.withWatch(Duration.ofMillis(100), Duration.ofSeconds(60)))
                .serveWatching();
        root.call("capture", null);
        awaitHumanEditOf(CRITIC, "identity", "the amended change captured");
        assertAgentItemsOnce();
        assertEquals(lines + 1, ledgerLines(), "the human's edit alone was recorded");
        assertEquals(
                "human:Sam Human <sam@example.com>",
                history(CRITIC).get(0).get("actor").asText());
        assertEquals("agent-1", history(YOUNG).get(0).get("actor").asText(), "the agent's items stay the agent's");
        assertReplayClean();
    }

    /** The agents' two items stand once each in {@link #YOUNG}, on disk and at HEAD. */
    private void assertAgentItemsOnce() throws Exception {
        for (String text : List.of(Files.readString(root.dir.resolve(YOUNG)), root.git("show", "HEAD:" + YOUNG))) {
            for (String item : List.of("- Deadlines\n", "- Crowds\n")) {
                assertEquals(1, text.split(java.util.regex.Pattern.quote(item), -1).length - 1, item + " in:\n" + text);
            }
        }
    }

    @Test
    void aDeadWatch_isRestarted_reportedInPing_andEditsAreStillCaptured() throws Exception {
        root(true);
        root.daemon.service().watcher().orElseThrow().killWatchForTest();
        await(
                () -> ((Number) root.daemon.service().watcher().get().health().get("restarts")).longValue() == 1,
                "a restart");
        long before = ledgerLines();
        String headBefore = head();
        edit(CRITIC, "strict teacher", "strict, restarted teacher");
        awaitCommitted(before + 1, headBefore, "the capture after a restart");
        JsonNode w = root.call("ping", null).get("result").get("watcher");
        assertEquals("running", w.get("state").asText(), w.toString());
        assertEquals(1, w.get("restarts").asLong());
    }

    @Test
    void replayVerify_namesTheFileAndSection_thatDiffer() throws Exception {
        root(false);
        edit(CRITIC, "strict teacher", "strict, uncaptured teacher");
        JsonNode r = replay();
        assertFalse(r.get("ok").asBoolean());
        JsonNode d = r.get("differences").get(0);
        assertEquals(CRITIC, d.get("path").asText());
        assertEquals("identity", d.get("sections").get(0).asText());
    }

    @Test
    void newLintCleanFile_isCaptured_andABrokenNewFile_isDrift() throws Exception {
        root(false);
        String notes = root.file("users/sam/parts/young-one/notes.md");
        Path dir = root.dir.resolve("users/sam/parts/quiet-one");
        Files.createDirectories(dir);
        String created = notes.replace("young-one", "quiet-one")
                .replace("Young One", "Quiet One")
                .replace("01JC7X00000000000000000006", "01JC7X000000000000000000Q1");
        Files.writeString(dir.resolve("notes.md"), created, StandardCharsets.UTF_8);
        Files.writeString(root.dir.resolve("users/sam/todo.md"), "buy milk\n");
        root.call("capture", null);
        List<JsonNode> h = history("users/sam/parts/quiet-one/notes.md");
        assertEquals(1, h.size(), h.toString());
        assertTrue(h.get(0).get("payload").get("whole_file").asBoolean());
        JsonNode items = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, items.size(), items.toString());
        assertEquals("users/sam/todo.md", items.get(0).get("path").asText());
    }

    @Test
    void aGitCommandHoldingTheBranchLock_makesWritesWait_thenRefusedWithNothingRecorded() throws Exception {
        root(false);
        System.setProperty("memoryd.refLockWaitMs", "300");
        try {
            Path lock = root.dir.resolve(".git/refs/heads/main.lock");
            Files.writeString(lock, "");
            long lines = ledgerLines();
            String before = root.file(CRITIC);
            JsonNode w = write(append(CRITIC, "Triggers", "while git holds the lock"));
            assertEquals("unavailable", w.get("error").get("data").get("reason").asText(), w.toString());
            assertTrue(w.get("error").get("message").asText().contains("main.lock"), w.toString());
            assertEquals(lines, ledgerLines());
            assertEquals(before, root.file(CRITIC));
            Files.delete(lock);
            assertTrue(write(append(CRITIC, "Triggers", "after git let go")).has("result"));
            assertReplayClean();
        } finally {
            System.clearProperty("memoryd.refLockWaitMs");
        }
    }

    @Test
    void whileTheWriterHoldsTheBranch_aGitCommitIsRefusedOrCaptured_neverLost() throws Exception {
        root(false);
        // Agents write continuously while a human commits with git: each human commit either lands
        // (and is captured) or git reports the lock and the human's change stays in the working tree.
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread agent = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                try {
                    write(append(CRITIC, "Triggers", "agent " + i));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        agent.start();
        try {
            for (int i = 0; i < 20; i++) {
                edit(
                        YOUNG,
                        "## Needs\n<!-- @anchor: needs v1 -->\n",
                        "## Needs\n<!-- @anchor: needs v1 -->\n\nhuman " + i + "\n");
                try {
                    root.git(
                            "-c",
                            "user.name=Alice",
                            "-c",
                            "user.email=alice@example.com",
                            "commit",
                            "-qam",
                            "alice " + i);
                } catch (AssertionError refused) {
                    assertTrue(
                            refused.getMessage().contains("lock"), refused.getMessage()); // git saw the writer's lock
                }
            }
        } finally {
            stop.set(true);
            agent.join();
        }
        root.call("capture", null);
        String young = root.file(YOUNG);
        for (int i = 0; i < 20; i++) {
            assertTrue(young.contains("human " + i + "\n"), "human " + i + " lost");
        }
        JsonNode ping = root.call("ping", null);
        assertTrue(ping.has("result"), "the writer still serves: " + ping);
        assertTrue(write(append(CRITIC, "Triggers", "after the race")).has("result"));
        assertReplayClean();
    }

    @Test
    void gitResetBehindMemoryd_redoesItsLaterWritesOnTopOfTheMovedBranch_andWritesGoOn() throws Exception {
        root(false);
        assertTrue(write(append(CRITIC, "Triggers", "before the reset")).has("result"));
        String older = root.git("rev-parse", "HEAD~1").strip();
        root.git("reset", "-q", "--hard", "HEAD~1");
        assertFalse(root.file(CRITIC).contains("before the reset"));
        JsonNode next = write(append(CRITIC, "Triggers", "after the reset"));
        assertTrue(next.has("result"), next.toString());
        String text = root.git("show", "HEAD:" + CRITIC);
        assertTrue(text.contains("- before the reset\n") && text.contains("- after the reset\n"), text);
        assertEquals(1, text.split("- before the reset\n", -1).length - 1, "redone once: " + text);
        assertEquals(text, root.file(CRITIC));
        assertTrue(
                root.git("merge-base", "--is-ancestor", older, "HEAD").isEmpty(),
                "the branch the human chose is kept, with memoryd's writes on top");
        assertEquals("", root.git("status", "--porcelain"));
        assertReplayClean();
        // git rewrote the ledger's segment file under the open daemon; what it holds must still be every line.
        root.daemon.close();
        root.serve();
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
        assertTrue(root.file(CRITIC).contains("after the reset"));
        assertTrue(write(append(CRITIC, "Triggers", "after a restart")).has("result"));
    }

    @Test
    void gitResetBehindMemoryd_withNoWriteAfterIt_getsItsWritesRedoneOnceTheWatcherSeesTheMove() throws Exception {
        root(true);
        assertTrue(write(append(CRITIC, "Triggers", "made before the reset")).has("result"));
        root.git("reset", "-q", "--hard", "HEAD~1");
        await(
                () -> {
                    try {
                        return root.git("show", "HEAD:" + CRITIC).contains("- made before the reset\n")
                                && root.file(CRITIC).contains("- made before the reset\n");
                    } catch (java.io.IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                "the acknowledged write back on the branch and on disk");
        awaitClean();
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
    }

    @Test
    void aReturnToOrigHead_overWritesMadeAfterAnEarlierReset_losesNoneOfThem() throws Exception {
        // A human commits, resets to memoryd's last commit, memoryd writes on top, and the human
        // returns to ORIG_HEAD (their commit), which lacks those writes.
        root(false);
        assertTrue(write(append(CRITIC, "Triggers", "one")).has("result"));
        edit(CRITIC, "strict teacher", "strict, tired teacher");
        root.git("add", "-A");
        root.git("commit", "-qm", "human: a line");
        String humans = head();
        root.git("reset", "-q", "--hard", "HEAD~1");
        for (int i = 0; i < 5; i++) {
            assertTrue(write(append(CRITIC, "Triggers", "while reset " + i)).has("result"));
        }
        root.git("reset", "-q", "--hard", humans);
        JsonNode next = write(append(CRITIC, "Triggers", "after the return"));
        assertTrue(next.has("result"), next.toString());
        String critic = root.git("show", "HEAD:" + CRITIC);
        for (int i = 0; i < 5; i++) {
            assertTrue(critic.contains("- while reset " + i + "\n"), "acknowledged write " + i + " lost: " + critic);
        }
        assertTrue(critic.contains("- one\n") && critic.contains("- after the return\n"), critic);
        assertTrue(critic.contains("strict, tired teacher"), "the human's commit is kept: " + critic);
        assertTrue(root.git("merge-base", "--is-ancestor", humans, "HEAD").isEmpty());
        assertEquals("", root.git("status", "--porcelain"));
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
        assertReplayClean();
    }

    @Test
    void gitResetBehindMemoryd_thenARestart_redoesTheLedgersLaterEventsOnTop() throws Exception {
        root(false);
        assertTrue(write(append(CRITIC, "Triggers", "kept by the ledger")).has("result"));
        root.git("reset", "-q", "--hard", "HEAD~1");
        assertFalse(root.file(CRITIC).contains("kept by the ledger"));
        root.daemon.close();
        root.serve();
        assertTrue(root.file(CRITIC).contains("kept by the ledger"), "no acknowledged word is lost to a reset");
        assertTrue(write(append(CRITIC, "Triggers", "and writes go on")).has("result"));
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());
        assertReplayClean();
    }

    @Test
    void anotherBranchCheckedOut_refusesWrites_insteadOfRecordingItsFilesHere() throws Exception {
        root(false);
        String main = root.cfg.branch();
        root.git("checkout", "-q", "-b", "elsewhere");
        edit(CRITIC, "## Role", "## Role"); // untouched; the point is the checked-out branch
        JsonNode refused = write(append(CRITIC, "Triggers", "while elsewhere"));
        assertEquals(
                "unavailable", refused.get("error").get("data").get("reason").asText(), refused.toString());
        assertTrue(refused.get("error").get("message").asText().contains("git checkout " + main), refused.toString());
        root.git("checkout", "-q", main);
        assertTrue(write(append(CRITIC, "Triggers", "back home")).has("result"));
        assertTrue(root.file(CRITIC).contains("back home") && !root.file(CRITIC).contains("while elsewhere"));
        assertReplayClean();
    }

    /**
     * A drifted file committed again by the human (their {@code git commit -am} takes the broken
     * text from disk once more): the branch head goes on holding the recorded text, as it did after
     * the first commit. Before, the second commit's text stayed at the head (the capture skipped a
     * text unchanged since it was flagged), so the head no longer held what the ledger replays to.
     */
    @Test
    void aDriftedFileCommittedAgain_leavesTheRecordedTextAtTheBranchHead() throws Exception {
        root(false);
        String good = root.file(CRITIC);
        Files.writeString(root.dir.resolve(CRITIC), withoutChangeLog(good));
        root.git("commit", "-qam", "human: the change log goes");
        JsonNode w = write(append(YOUNG, "Open Questions", "first"));
        assertTrue(w.has("result"), w.toString());
        assertEquals(good, root.git("show", "HEAD:" + CRITIC), "memoryd's commit put the recorded text back");

        Files.createDirectories(root.dir.resolve(HumanGit.OWN_FILE).getParent());
        Files.writeString(root.dir.resolve(HumanGit.OWN_FILE), "mine\n");
        root.git("add", HumanGit.OWN_FILE);
        root.git("commit", "-qam", "human: the broken file once more, with a file of my own");
        JsonNode w2 = write(append(YOUNG, "Open Questions", "second"));
        assertTrue(w2.has("result"), w2.toString());
        assertEquals(good, root.git("show", "HEAD:" + CRITIC), "and puts it back again");
        assertEquals("mine\n", root.git("show", "HEAD:" + HumanGit.OWN_FILE), "the human's own file stays");
        assertEquals(1, root.call("drift.list", null).get("result").get("items").size(), "one drift item");
        assertFalse(root.file(CRITIC).contains("## Change Log"), "the human's text stays on disk");
    }

    /**
     * A {@code git mv} of a memory file: the deletion is flagged from the working tree first (an
     * agent's write reads the file), then the human commits the move. The branch head keeps the
     * recorded file, with the agent's acknowledged items, while the drift items wait for a
     * maintainer; the moved copy (no file type of the grammar) is not in memoryd's commit either.
     */
    @Test
    void aMoveCommittedAfterItsDeletionWasFlagged_keepsTheRecordedFileAtTheBranchHead() throws Exception {
        root(false);
        JsonNode w = write(append(YOUNG, "Open Questions", "acknowledged before the move"));
        assertTrue(w.has("result"), w.toString());
        String recorded = root.file(YOUNG);
        String moved = YOUNG.replace("profile.md", "profile2.md");
        root.git("mv", YOUNG, moved);
        JsonNode refused = write(append(YOUNG, "Open Questions", "after the move"));
        assertEquals("drift", refused.get("error").get("data").get("reason").asText(), refused.toString());
        root.git("commit", "-qm", "human: a new name for the young one");

        JsonNode w2 = write(append(CRITIC, "Triggers", "elsewhere"));
        assertTrue(w2.has("result"), w2.toString());
        assertEquals(recorded, root.git("show", "HEAD:" + YOUNG), "the recorded file is at the branch head");
        assertFalse(root.git("ls-tree", "--name-only", "HEAD", moved).contains("profile2"), "not the moved copy");
        assertTrue(Files.exists(root.dir.resolve(moved)), "the human's moved copy stays on disk");
        assertEquals(2, root.call("drift.list", null).get("result").get("items").size(), "deleted, and unknown type");
    }

    /**
     * A human's commit that deletes a memory file ({@code git rm}, then commit) is drift of kind
     * {@code deleted}: the branch keeps the recorded file, and the item waits for a maintainer with
     * the file absent on disk as the human left it. Before, memoryd took the absent file for one git
     * had put back to an older version (the branch had no such file at the human's own commit),
     * wrote the recorded text back to disk, and closed the item as {@code reverted_by_human}: the
     * human never did that, and the maintainer never saw the deletion.
     */
    @Test
    void aCommittedDeletion_waitsInTheQueue_neverClosedAsRevertedByTheHuman() throws Exception {
        root(true);
        String notes = "users/sam/parts/young-one/notes.md";
        String recorded = root.file(notes);
        String before = head();
        root.git("rm", "-q", notes);
        root.git("commit", "-qm", "human: the young one needs no notes");
        awaitDriftItems(1, "the deletion flagged");
        Thread.sleep(1_500); // the watcher's quiet period and rescans, several times over
        root.call("capture", null);
        JsonNode items = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, items.size(), "the deletion waits for a maintainer: " + items);
        assertEquals("deleted", items.get(0).get("kind").asText(), items.toString());
        assertFalse(Files.exists(root.dir.resolve(notes)), "the file stays as the human left it: absent");
        assertEquals(recorded, root.git("show", "HEAD:" + notes), "the branch keeps the recorded file");
        for (JsonNode e : history(notes)) {
            assertFalse(e.toString().contains("reverted_by_human"), "nothing the human did not do: " + e);
        }
        String id = items.get(0).get("id").asText();
        JsonNode restored = root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"restore\"}");
        assertTrue(restored.has("result"), restored.toString());
        assertEquals(recorded, Files.readString(root.dir.resolve(notes)), "a maintainer's restore puts it back");
        assertEquals(0, root.call("drift.list", null).get("result").get("items").size());
        assertFalse(head().equals(before));
        awaitClean();
        assertReplayClean();
    }

    /**
     * The drift item of a committed deletion keeps the recorded file in the branch, and the index
     * keeps it too: {@code git status} shows the file deleted in the working tree, not a deletion
     * staged, so the human's next commit of a file of their own does not delete it from the branch
     * again. Before, memoryd's commit put the file back in the branch and left the index without
     * it; the human's {@code git add own.txt && git commit} then committed the deletion once more,
     * recorded as another deletion of theirs, and so on at every commit.
     */
    @Test
    void aCommittedDeletionWaitingInTheQueue_isNotCommittedAgainByTheHumansNextCommit() throws Exception {
        root(true);
        String notes = "users/sam/parts/young-one/notes.md";
        String recorded = root.file(notes);
        root.git("rm", "-q", notes);
        root.git("commit", "-qm", "human: the young one needs no notes");
        await(
                () -> {
                    try {
                        return recorded.equals(root.git("show", "HEAD:" + notes));
                    } catch (java.io.IOException | InterruptedException | AssertionError e) {
                        return false; // not in the branch yet
                    }
                },
                "the branch keeps the recorded file");
        await(
                () -> {
                    try {
                        return root.git("status", "--porcelain").equals(" D " + notes + "\n");
                    } catch (java.io.IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                "the file deleted in the working tree only, nothing staged");
        String blob = root.git("rev-parse", "HEAD:" + notes).strip();
        assertTrue(root.git("ls-files", "-s", "--", notes).contains(blob), "the index holds the branch's blob");
        long deletions = history(notes).stream()
                .filter(e -> e.toString().contains("deleted"))
                .count();

        commitAFileOfTheirOwn();

        assertEquals(recorded, root.git("show", "HEAD:" + notes), "the human's commit left the file in the branch");
        assertEquals("", root.git("diff", "--name-only", "HEAD~1", "HEAD", "--", notes), "at every commit since");
        assertEquals(
                deletions,
                history(notes).stream()
                        .filter(e -> e.toString().contains("deleted"))
                        .count(),
                "no second deletion recorded");
        assertEquals(1, driftItems().size());
    }

    /**
     * The same for a committed edit that breaks the grammar: the branch keeps the recorded text, the
     * index holds it too, and the human's text stays on disk as a change in the working tree
     * ({@code " M"}), so their next commit of another file does not take the broken text into the
     * branch again.
     */
    @Test
    void aCommittedDriftWaitingInTheQueue_isNotCommittedAgainByTheHumansNextCommit() throws Exception {
        root(true);
        String recorded = root.file(YOUNG);
        String broken = recorded.replace("## Open Questions\n", "## Questions\n");
        assertFalse(broken.equals(recorded), "fixture");
        Files.writeString(root.dir.resolve(YOUNG), broken);
        root.git("commit", "-qam", "human: rename a section");
        await(
                () -> {
                    try {
                        return root.git("status", "--porcelain").equals(" M " + YOUNG + "\n")
                                && recorded.equals(root.git("show", "HEAD:" + YOUNG));
                    } catch (java.io.IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                "the recorded text in the branch and the index, the human's on disk as a change");
        assertEquals(broken, Files.readString(root.dir.resolve(YOUNG)), "the human's text stays on disk");

        commitAFileOfTheirOwn();

        assertEquals(recorded, root.git("show", "HEAD:" + YOUNG), "the human's commit left the recorded text");
        assertEquals(1, root.call("drift.list", null).get("result").get("items").size());
    }

    /**
     * A part's directory renamed with {@code git mv} and committed, then moved back by hand: the
     * rename opens an item for each file at each path (deleted at the old, identity fields not
     * matching the new); moving the directory back closes all of them, those of the new paths too,
     * whose files the branch never held. Before, those two stayed open for files that were gone:
     * a rescan looked only at files on disk and in the branch.
     */
    @Test
    void aRenamedPartMovedBack_closesEveryItemOfTheRename() throws Exception {
        root(true);
        String from = "users/sam/parts/young-one";
        String to = "users/sam/parts/little-one";
        root.git("mv", from, to);
        root.git("commit", "-qm", "human: rename the young one");
        awaitDriftItems(4, "an item for each file at each path");
        java.util.Map<String, String> reasons = new java.util.TreeMap<>();
        root.call("drift.list", null)
                .get("result")
                .get("items")
                .forEach(
                        i -> reasons.put(i.get("path").asText(), i.get("reason").asText()));
        for (String file : List.of("profile.md", "notes.md")) {
            assertTrue(
                    reasons.get(from + "/" + file).startsWith("the file was moved to " + to + "/" + file + ";"),
                    "the old path's item says where the text went: " + reasons);
            assertTrue(
                    reasons.get(to + "/" + file).startsWith("moved here from " + from + "/" + file + ": "),
                    "the new path's item says where it came from: " + reasons);
        }

        Files.move(root.dir.resolve(to), root.dir.resolve(from));
        awaitDriftItems(0, "every item closed once the directory is back");
        awaitClean();
        assertReplayClean();
    }

    /**
     * An editor saving in place (truncate, then write) while an agent writes the same file: the
     * agent's read in between sees half a file. It is read again once the save settles, so the
     * human's whole edit is recorded, the agent's item goes on top, and no drift item is opened in
     * the human's name. Before, the half file was captured: a {@code grammar_broken} drift item and
     * the agent's write refused.
     */
    @Test
    void anInPlaceSaveCaughtHalfWritten_isReadAgainOnceItSettles_notDrift() throws Exception {
        root(false);
        String text = root.file(YOUNG)
                .replace(
                        "## Open Questions\n<!-- @anchor: open-questions v1 -->\n\n",
                        "## Open Questions\n<!-- @anchor: open-questions v1 -->\n\n- Saved in place by hand\n");
        assertTrue(text.contains("Saved in place"), "fixture");
        byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int half = bytes.length / 3;
        java.util.concurrent.CompletableFuture<JsonNode> agent;
        try (java.nio.channels.FileChannel ch =
                java.nio.channels.FileChannel.open(root.dir.resolve(YOUNG), java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(0);
            ch.write(java.nio.ByteBuffer.wrap(bytes, 0, half));
            agent = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return write(append(YOUNG, "Triggers", "Written beside the save"));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // The rest in ten pieces 25 ms apart, as a slow disk or a large file would come: each piece
            // changes the file again, so the agent's read falls inside the save.
            int piece = (bytes.length - half + 9) / 10;
            for (int at = half; at < bytes.length; at += piece) {
                Thread.sleep(25);
                ch.write(java.nio.ByteBuffer.wrap(bytes, at, Math.min(piece, bytes.length - at)));
            }
        }
        JsonNode w = agent.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(w.has("result"), w.toString());
        String head = root.git("show", "HEAD:" + YOUNG);
        assertTrue(head.contains("- Saved in place by hand\n"), head);
        assertTrue(head.contains("- Written beside the save\n"), head);
        assertEquals(head, root.file(YOUNG), "the file is the branch's");
        assertEquals(0, root.call("drift.list", null).get("result").get("items").size(), "no drift item");
    }

    /**
     * Saves the young one's profile with a line in Open Questions in Latin-1 (an 0xE9 byte); returns
     * the bytes saved.
     */
    private byte[] saveInLatin1(String good) throws java.io.IOException {
        String anchor = "<!-- @anchor: open-questions v1 -->\n\n";
        int at = good.indexOf(anchor) + anchor.length();
        byte[] head = good.substring(0, at).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] tail = good.substring(at).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] line = "- caf\u00e9 by hand\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] out = new byte[head.length + line.length + tail.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(line, 0, out, head.length, line.length);
        System.arraycopy(tail, 0, out, head.length + line.length, tail.length);
        Files.write(root.dir.resolve(YOUNG), out);
        return out;
    }

    /**
     * A memory file saved in another encoding is drift, named as such, and never rewritten: the
     * agent's write to it gets {@code drift}, the file keeps the human's bytes, and the branch keeps
     * the recorded text. Before, every agent write to the file failed with {@code unavailable}
     * (a MalformedInputException) and the edit was never captured.
     */
    @Test
    void aFileSavedInAnotherEncoding_isDrift_andItsBytesAreNeverRewritten() throws Exception {
        root(false);
        String good = root.file(YOUNG);
        byte[] latin1 = saveInLatin1(good);
        assertWriteMeetsBrokenFileDrift(latin1, good, "not valid UTF-8");
        JsonNode other = write(append(CRITIC, "Triggers", "Deadlines"));
        assertTrue(other.has("result"), "another file is written as ever: " + other);
    }

    /**
     * The same save made while the daemon was down: the next start serves (the search index and the
     * chunk graphs leave the file out instead of failing on it), opens the drift item, and keeps the
     * human's bytes. Before, {@code serve} exited with "Input length = 3": the root could not be
     * served until someone found and fixed the file by hand.
     */
    @Test
    void aFileSavedInAnotherEncodingWhileTheDaemonWasDown_doesNotKeepItFromStarting() throws Exception {
        root(false);
        String good = root.file(YOUNG);
        root.daemon.close();
        root.daemon = null;
        byte[] latin1 = saveInLatin1(good);
        root.serve();
        JsonNode items = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, items.size(), items.toString());
        assertTrue(items.toString().contains("not valid UTF-8"), items.toString());
        JsonNode found = root.call("search", "{\"q\":\"Triggers\"}");
        assertTrue(found.has("result"), found.toString());
        assertFalse(found.toString().contains("\ufffd") || found.toString().contains("\\ufffd"), found.toString());
        JsonNode other = write(append(CRITIC, "Triggers", "Deadlines"));
        assertTrue(other.has("result"), "another file is written as ever: " + other);
        assertTrue(java.util.Arrays.equals(latin1, Files.readAllBytes(root.dir.resolve(YOUNG))), "the bytes stay");
        assertEquals(good, root.git("show", "HEAD:" + YOUNG), "the branch keeps the recorded text");
    }

    /**
     * A human's {@code git pull} that stops on a conflict in a memory file an agent wrote: while the
     * merge waits, the conflict markers are git's, not the human's words. Nothing is captured or
     * committed and writes are refused naming the merge; {@code git status} keeps the file
     * unmerged. The human's resolution is then captured from their merge commit, and after a
     * second merge is aborted writes resume with nothing recorded. Before, the markers were
     * captured as the human's edit and committed on the branch within a second, and the file was
     * staged as resolved, so {@code git merge --abort} kept the markers.
     */
    @Test
    void aMergeStoppedOnAConflict_isNeitherCapturedNorWrittenOver_andItsConclusionIsCaptured() throws Exception {
        root(true);
        String overview = "users/sam/overview.md";
        Path laptop = laptopClone();
        Path there = laptop.resolve(overview);
        laptopCommits(
                there,
                "what it is trying to keep away from the young one.",
                "what it is trying to keep away from the young one. Written on the laptop.");

        agentWritesCurrentFocus(overview, "Sleep before deadlines.");
        String head = head();
        long lines = ledgerLines();

        pullStoppingOnAConflict(laptop, "--no-rebase");
        assertTrue(Files.readString(root.dir.resolve(overview)).contains("<<<<<<<"), "git's markers on disk");

        Thread.sleep(
                1_000); // the watcher's quiet period and the writer's look at the git directory, several times over
        JsonNode capture = root.call("capture", null);
        JsonNode refused = write(
                "{\"op\":\"append_item\",\"path\":\"" + YOUNG + "\",\"section\":\"Triggers\",\"item\":\"Merges\"}");
        assertEquals(
                "unavailable", refused.path("error").path("data").path("reason").asText(), refused.toString());
        assertTrue(refused.toString().contains("git is in the middle of a merge"), refused.toString());
        assertEquals(
                "merge",
                refused.path("error").path("data").path("git_in_progress").asText(),
                refused.toString());
        assertEquals(
                head,
                head(),
                "nothing committed while the merge waits: " + capture
                        + root.git("log", "-3", "--stat", "--format=%s%n%b"));
        assertEquals(lines, ledgerLines(), "nothing recorded while the merge waits");
        assertTrue(root.git("status", "--porcelain").contains("UU " + overview), root.git("status", "--porcelain"));
        assertFalse(Files.readString(root.dir.resolve(YOUNG)).contains("Merges"));
        JsonNode waiting = root.call("ping", null).path("result").path("writer");
        assertEquals("merge", waiting.path("git_in_progress").asText(), "ping says why writes wait: " + waiting);

        // The human resolves by keeping both and concludes the merge: that commit is their edit.
        Path here = root.dir.resolve(overview);
        Files.writeString(here, keepingBothSides(Files.readString(here)));
        root.git("add", overview);
        JsonNode staged = write(
                "{\"op\":\"append_item\",\"path\":\"" + YOUNG + "\",\"section\":\"Triggers\",\"item\":\"Merges\"}");
        assertTrue(
                staged.toString().contains("once it is concluded (git commit)"),
                "resolved, the merge waits for its commit alone: " + staged);
        root.git("commit", "-q", "--no-edit");
        awaitHumanEditOf(overview, "current-focus", "the merge's resolution captured");
        // Found after the capture: on a loaded machine the capture can land before a look at HEAD.
        String merge = root.git("rev-list", "-1", "--merges", "HEAD").strip();
        JsonNode edit = history(overview).get(0);
        assertTrue(
                edit.toString().contains("Written on the laptop.")
                        && edit.toString().contains("Sleep before deadlines."),
                edit.toString());
        assertFalse(edit.toString().contains("<<<<<<<"), edit.toString());
        for (JsonNode e : history(overview)) {
            assertFalse(e.toString().contains("<<<<<<<"), "no event holds git's markers: " + e);
        }
        assertEquals(
                merge,
                root.git("rev-parse", "HEAD~1").strip(),
                "memoryd's capture follows the merge commit: " + root.git("log", "-4", "--format=%h %p %s"));
        JsonNode concluded = root.call("ping", null).path("result").path("writer");
        assertTrue(concluded.path("git_in_progress").isMissingNode(), concluded.toString());
        assertTrue(concluded.path("unmerged").isMissingNode(), "no conflict named once git committed: " + concluded);
        JsonNode after = write(
                "{\"op\":\"append_item\",\"path\":\"" + YOUNG + "\",\"section\":\"Triggers\",\"item\":\"Merges\"}");
        assertTrue(after.has("result"), after.toString());
        awaitClean();
        assertReplayClean();

        // A second conflicting merge, aborted: git puts the branch's text back; writes resume.
        laptopCommits(there, "Written on the laptop.", "Rewritten on the laptop.");
        write("{\"op\":\"replace_section\",\"path\":\"" + overview
                + "\",\"section\":\"Current Focus\",\"content\":\"Rest.\"}");
        awaitClean();
        String before = head();
        long linesBefore = ledgerLines();
        pullStoppingOnAConflict(laptop, "--no-rebase");
        Thread.sleep(1_000);
        root.git("merge", "--abort");
        assertFalse(
                Files.readString(here).contains("<<<<<<<"),
                "the abort put the branch's text back" + root.git("log", "-3", "--stat", "--format=%s%n%b"));
        JsonNode resumed = write("{\"op\":\"append_item\",\"path\":\"" + YOUNG
                + "\",\"section\":\"Triggers\",\"item\":\"Aborted merges\"}");
        assertTrue(resumed.has("result"), resumed.toString());
        assertEquals(before, root.git("rev-parse", "HEAD~1").strip(), "only the agent's write followed");
        assertEquals(linesBefore + 1, ledgerLines(), "and nothing of the aborted merge was recorded");
        awaitClean();
        assertReplayClean();
    }

    /**
     * A {@code git pull --rebase} that stops on a conflict leaves HEAD detached: the refusal names
     * the rebase and how to end it, not a checkout of the branch (which would lose the rebase's
     * place), and nothing is captured; after {@code git rebase --abort} writes resume.
     */
    @Test
    void aRebaseStoppedOnAConflict_refusesWritesNamingTheRebase_untilItIsAborted() throws Exception {
        root(true);
        String overview = "users/sam/overview.md";
        Path laptop = laptopClone();
        laptopCommits(laptop.resolve(overview), "rather than an enemy", "rather than an enemy (laptop)");
        write("{\"op\":\"replace_section\",\"path\":\"" + overview
                + "\",\"section\":\"Current Focus\",\"content\":\"Sleep before deadlines.\"}");
        // A commit of the human's own on top, so the rebase has something to replay onto the laptop's.
        edit(overview, "Sleep before deadlines.", "Sleep before deadlines, says Sam.");
        root.git("commit", "-qam", "Sam's own");
        awaitHumanEditOf(overview, "current-focus", "the human's commit captured");
        awaitClean();
        String head = head();
        long lines = ledgerLines();

        pullStoppingOnAConflict(laptop, "--rebase");
        Thread.sleep(1_000);
        root.call("capture", null);
        JsonNode refused = write(
                "{\"op\":\"append_item\",\"path\":\"" + YOUNG + "\",\"section\":\"Triggers\",\"item\":\"Rebases\"}");
        assertEquals(
                "rebase",
                refused.path("error").path("data").path("git_in_progress").asText(),
                refused.toString());
        assertTrue(refused.toString().contains("git rebase --abort"), refused.toString());
        assertFalse(refused.toString().contains("git checkout"), refused.toString());
        assertEquals(
                head, root.git("rev-parse", "refs/heads/main").strip(), "nothing committed while the rebase waits");

        root.git("rebase", "--abort");
        assertEquals(head, head());
        JsonNode resumed = write(
                "{\"op\":\"append_item\",\"path\":\"" + YOUNG + "\",\"section\":\"Triggers\",\"item\":\"Rebases\"}");
        assertTrue(resumed.has("result"), resumed.toString());
        assertEquals(lines + 1, ledgerLines());
        awaitClean();
        assertReplayClean();
    }

    /**
     * A {@code git stash pop} that stops on a conflict leaves no file in git's directory to tell
     * (no {@code MERGE_HEAD}), only the file's unmerged entries in the index: memoryd neither
     * captures that file nor writes it until the human's {@code git add}, while writes to other
     * files go on and keep the conflict in the index; the resolution is then captured as the
     * human's edit. Before, the conflict markers were captured as the human's words and committed,
     * and the file was staged as resolved.
     */
    @Test
    void aStashPopStoppedOnAConflict_isNeitherCapturedNorWrittenOver_untilTheHumanAddsIt() throws Exception {
        root(true, 10_000); // the human's save and stash come well within the watcher's quiet period
        String overview = "users/sam/overview.md";
        edit(
                overview,
                "what it is trying to keep away from the young one.",
                "what it is trying to keep away from the young one. Sam's own draft.");
        root.git("stash", "-q");
        agentWritesCurrentFocus(overview, "Sleep before deadlines.");
        String head = head();
        long lines = ledgerLines();

        Process pop = new ProcessBuilder("git", "-C", root.dir.toString(), "stash", "pop")
                .redirectErrorStream(true)
                .start();
        String popped = new String(pop.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, pop.waitFor(), "git stash pop stops on the conflict: " + popped);
        Path here = root.dir.resolve(overview);
        assertTrue(Files.readString(here).contains("<<<<<<<"), "git's markers on disk");
        await(
                () -> {
                    try {
                        return root.call("ping", null)
                                .path("result")
                                .path("writer")
                                .path("unmerged")
                                .toString()
                                .contains(overview);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                },
                "ping naming the conflict before anything reads the file");

        JsonNode capture = root.call("capture", null);
        JsonNode refused = write("{\"op\":\"replace_section\",\"path\":\"" + overview
                + "\",\"section\":\"Current Focus\",\"content\":\"Rest.\"}");
        assertEquals(
                "unavailable", refused.path("error").path("data").path("reason").asText(), refused.toString());
        assertEquals(
                overview, refused.path("error").path("data").path("unmerged").asText(), refused.toString());
        assertTrue(refused.toString().contains("git add " + overview), refused.toString());
        JsonNode other = write(append(YOUNG, "Triggers", "Stashes"));
        assertTrue(other.has("result"), "a write to another file goes on: " + other);
        assertEquals(
                head,
                root.git("rev-parse", "HEAD~1").strip(),
                "only the agent's other write was committed: " + capture
                        + root.git("log", "-3", "--stat", "--format=%s%n%b"));
        assertEquals(lines + 1, ledgerLines(), "nothing of the conflict recorded");
        for (JsonNode e : history(overview)) {
            assertFalse(e.toString().contains("<<<<<<<"), "no event holds git's markers: " + e);
        }
        assertTrue(Files.readString(here).contains("<<<<<<<"), "the conflict left for the human");
        assertTrue(
                root.git("status", "--porcelain").contains("UU " + overview),
                "the index keeps the conflict: " + root.git("status", "--porcelain"));
        JsonNode writer = root.call("ping", null).path("result").path("writer");
        assertEquals(overview, writer.path("unmerged").path(0).asText(), "ping names the file: " + writer);
        JsonNode check = replay().path("differences");
        assertEquals(1, check.size(), check.toString());
        assertEquals(overview, check.get(0).path("path").asText(), check.toString());
        assertEquals("unmerged", check.get(0).path("kind").asText(), "git's markers are not a difference: " + check);

        // The human keeps both sides and adds the file: that is their edit.
        Files.writeString(here, keepingBothSides(Files.readString(here)));
        root.git("add", overview);
        awaitHumanEditOf(overview, "current-focus", "the resolution captured");
        JsonNode edit = history(overview).get(0);
        assertTrue(
                edit.toString().contains("Sam's own draft.") && edit.toString().contains("Sleep before deadlines."),
                edit.toString());
        assertFalse(edit.toString().contains("<<<<<<<"), edit.toString());
        assertTrue(root.call("ping", null)
                .path("result")
                .path("writer")
                .path("unmerged")
                .isMissingNode());
        JsonNode after = write("{\"op\":\"replace_section\",\"path\":\"" + overview
                + "\",\"section\":\"Current Focus\",\"content\":\"Rest.\"}");
        assertTrue(after.has("result"), after.toString());
        awaitClean();
        assertReplayClean();
    }

    /** An agent's replace_section of Current Focus in {@code overview}, acknowledged, with the index in step. */
    private void agentWritesCurrentFocus(String overview, String text) throws Exception {
        JsonNode w = write("{\"op\":\"replace_section\",\"path\":\"" + overview
                + "\",\"section\":\"Current Focus\",\"content\":\"" + text + "\"}");
        assertTrue(w.has("result"), w.toString());
        awaitClean();
    }

    /** {@code conflicted} resolved as a human keeping both sides of each of git's conflicts. */
    private static String keepingBothSides(String conflicted) {
        String resolved = conflicted.replaceAll("(?s)<<<<<<< [^\n]*\n(.*?)=======\n(.*?)>>>>>>> [^\n]*\n", "$1\n$2");
        assertFalse(resolved.contains("<<<<<<<") || resolved.contains("======="), resolved);
        return resolved;
    }

    /** {@code git pull} of the laptop's main in the root, which must stop on a conflict (exit 1). */
    private void pullStoppingOnAConflict(Path laptop, String mode) throws Exception {
        Process pull = new ProcessBuilder(
                        "git", "-C", root.dir.toString(), "pull", "-q", mode, laptop.toString(), "main")
                .redirectErrorStream(true)
                .start();
        String out = new String(pull.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, pull.waitFor(), "git pull " + mode + " stops on the conflict: " + out);
    }

    /** A clone of the root, as on a laptop, with its own git identity. */
    private Path laptopClone() throws Exception {
        Path laptop = tmp.resolve("laptop");
        gitIn(tmp, "clone", "-q", root.dir.toString(), laptop.toString());
        gitIn(laptop, "config", "user.name", "Sam Laptop");
        gitIn(laptop, "config", "user.email", "sam@laptop.example");
        return laptop;
    }

    /** Replaces {@code from} with {@code to} in a file of the laptop's clone and commits it there. */
    private static void laptopCommits(Path file, String from, String to) throws Exception {
        String text = Files.readString(file);
        assertTrue(text.contains(from), "fixture text missing: " + from);
        Files.writeString(file, text.replace(from, to));
        Path laptop = file;
        while (!Files.isDirectory(laptop.resolve(".git"))) {
            laptop = laptop.getParent();
        }
        gitIn(laptop, "commit", "-qam", "from the laptop: " + to);
    }

    private static void gitIn(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "git " + String.join(" ", args) + ": " + out);
    }

    /**
     * A file a human saved with CRLF line ends is their edit, and the agent's next write to it ends
     * its lines with CRLF too: the file on disk and at the branch head never mixes the two (an
     * editor then shows a stray ^M on every other line), replay gives the same bytes, and nothing
     * more is captured as the human's. Before, the agent's item and Change Log line ended with a
     * lone LF among the human's CRLF lines.
     */
    @Test
    void aFileSavedWithCrlfLineEnds_keepsThemThroughAnAgentsWrite() throws Exception {
        root(false);
        Path f = root.dir.resolve(YOUNG);
        Files.writeString(f, Files.readString(f).replace("\n", "\r\n"));
        root.call("capture", null); // else the write meets the human's change of every section: conflict
        JsonNode w = write(append(YOUNG, "Triggers", "Deadlines"));
        assertTrue(w.has("result"), w.toString());
        String onDisk = Files.readString(f);
        assertTrue(onDisk.contains("- Deadlines\r\n"), onDisk);
        assertFalse(onDisk.replace("\r\n", "").contains("\n"), "no lone LF on disk: " + onDisk);
        assertEquals(onDisk, root.git("show", "HEAD:" + YOUNG), "the branch holds the same bytes");
        awaitClean();
        assertReplayClean();
        List<JsonNode> events = history(YOUNG);
        assertEquals("append_item", events.get(0).get("op").asText(), events.toString());
        assertEquals(
                "crlf",
                events.get(0).path("payload").path("line_ends").asText(),
                "the line says so, for replay: " + events.get(0));
        long humans = events.stream()
                .filter(e -> e.get("op").asText().equals("human_edit"))
                .count();
        assertTrue(humans > 0, "the CRLF save is the human's edit: " + events);
        root.call("capture", null);
        assertEquals(history(YOUNG).size(), events.size(), "nothing more is captured: " + history(YOUNG));
    }

    /**
     * A save that puts a UTF-8 byte order mark before the frontmatter (as some Windows editors
     * do): drift naming the mark, never rewritten. Before, the drift said the frontmatter was
     * missing, which the human, seeing "---" at the top in their editor, could not act on.
     */
    @Test
    void aSaveWithAByteOrderMark_isDriftNamingTheMark_andItsBytesAreNeverRewritten() throws Exception {
        root(false);
        String good = root.file(YOUNG);
        byte[] marked = ("\uFEFF" + good).getBytes(StandardCharsets.UTF_8);
        Files.write(root.dir.resolve(YOUNG), marked);
        assertWriteMeetsBrokenFileDrift(marked, good, "byte order mark");
    }

    /**
     * An agent's write to {@link #YOUNG}, saved by the human as {@code saved}: refused with
     * {@code drift}, one {@code grammar_broken} item whose text names {@code why}, the human's
     * bytes left as they are and the recorded text {@code recorded} kept at the branch head.
     */
    private void assertWriteMeetsBrokenFileDrift(byte[] saved, String recorded, String why) throws Exception {
        JsonNode w = write(append(YOUNG, "Triggers", "Deadlines"));
        assertEquals("drift", w.path("error").path("data").path("reason").asText(), w.toString());
        JsonNode items = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, items.size(), items::toString);
        assertEquals("grammar_broken", items.get(0).get("kind").asText());
        assertTrue(items.toString().contains(why), items::toString);
        assertTrue(java.util.Arrays.equals(saved, Files.readAllBytes(root.dir.resolve(YOUNG))), "the bytes stay");
        assertEquals(recorded, root.git("show", "HEAD:" + YOUNG), "the branch keeps the recorded text");
    }

    /**
     * A memory file replaced by a symbolic link (to a copy outside the root): memoryd never
     * follows it, so the capture flags it as drift naming the link, leaves the link alone, and the
     * branch keeps the recorded text. Before, the link was neither captured nor flagged: `git
     * status` showed a type change that no maintainer was told of.
     */
    @Test
    void aMemoryFileReplacedByASymlink_isDriftNamingTheLink_andTheLinkIsLeftAlone() throws Exception {
        root(false);
        String good = root.file(YOUNG);
        Path outside = Files.createTempFile(tmp, "elsewhere", ".md");
        Files.writeString(outside, good.replace("## Triggers\n", "## Triggers\n\n- linked\n"));
        Path f = root.dir.resolve(YOUNG);
        Files.delete(f);
        Files.createSymbolicLink(f, outside);
        root.call("capture", null); // every file: a link's path is refused as a request's path
        JsonNode items = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, items.size(), items::toString);
        assertEquals(YOUNG, items.get(0).get("path").asText());
        assertEquals("grammar_broken", items.get(0).get("kind").asText());
        assertTrue(
                items.get(0).get("reason").asText().contains("is a symbolic link (to " + outside + ")"),
                items::toString);
        assertTrue(Files.isSymbolicLink(f), "the link stays");
        assertEquals(good, root.git("show", "HEAD:" + YOUNG), "the branch keeps the recorded text");
        JsonNode other = write(append(CRITIC, "Triggers", "Deadlines"));
        assertTrue(other.has("result"), "another file is written as ever: " + other);
    }

    /**
     * Resolving a symbolic link's drift item: {@code --accept-current} recorded the link's target
     * ("-> /elsewhere") as the file's whole text, so the branch lost the file, and {@code --restore}
     * failed the writer with a Java exception. Both are refused naming the link, and nothing changes.
     */
    @Test
    void aSymlinksDriftItem_isNotAcceptedOrRestoredOverTheLink_andTheWriterStaysWell() throws Exception {
        root(false);
        String good = root.file(YOUNG);
        Path outside = Files.createTempFile(tmp, "elsewhere", ".md");
        Files.writeString(outside, good);
        Path f = root.dir.resolve(YOUNG);
        Files.delete(f);
        Files.createSymbolicLink(f, outside);
        root.call("capture", null);
        String id = root.firstDriftId();
        String head = root.git("rev-parse", "HEAD").strip();
        for (String how : List.of("accept_current", "restore")) {
            JsonNode r = root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"" + how + "\"}");
            assertEquals("conflict", r.at("/error/data/reason").asText(), how + ": " + r);
            assertTrue(r.at("/error/message").asText().contains("symbolic link"), r.toString());
            assertFalse(r.at("/error/message").asText().contains("Exception"), r.toString());
        }
        assertEquals(head, root.git("rev-parse", "HEAD").strip(), "nothing committed");
        assertEquals(good, root.git("show", "HEAD:" + YOUNG), "the branch keeps the recorded text");
        assertTrue(Files.isSymbolicLink(f), "the link stays");
        assertEquals(id, root.firstDriftId(), "the item waits");
        assertEquals("ok", root.call("ping", null).at("/result/writer/state").asText(), "the writer is well");

        // replay --verify names the link as a difference; it failed as "unavailable: replay failed"
        JsonNode replayed = replay();
        assertFalse(replayed.get("ok").asBoolean(), replayed.toString());
        assertTrue(replayed.get("differences").toString().contains("\"kind\":\"not_text\""), replayed.toString());

        Files.delete(f); // the human takes the link away: the item shows a deleted file, which restore puts back
        root.call("capture", null);
        JsonNode r = root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"restore\"}");
        assertTrue(r.has("result"), r.toString());
        assertEquals(good.replaceAll("last_updated: .*", ""), root.file(YOUNG).replaceAll("last_updated: .*", ""));
    }

    /**
     * The same link committed with git: its blob is the link's target, which was taken for the
     * file's text and flagged as a broken frontmatter. Now the drift item names the link, and
     * memoryd's commit puts the recorded regular file back at the branch head.
     */
    @Test
    void aSymlinkCommittedInPlaceOfAMemoryFile_isDriftNamingTheLink_andTheBranchKeepsTheRecordedFile()
            throws Exception {
        root(false);
        String good = root.file(YOUNG);
        Path f = root.dir.resolve(YOUNG);
        Files.delete(f);
        Files.createSymbolicLink(f, Path.of("../inner-critic/profile.md"));
        root.git("commit", "-qam", "human: a link");
        JsonNode w = write(append(CRITIC, "Triggers", "Deadlines"));
        assertTrue(w.has("result"), w.toString());
        JsonNode items = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, items.size(), items::toString);
        assertTrue(
                items.get(0).get("reason").asText().contains("is a symbolic link (to ../inner-critic/profile.md)"),
                items::toString);
        assertEquals(good, root.git("show", "HEAD:" + YOUNG));
        assertTrue(root.git("ls-tree", "HEAD", YOUNG).startsWith("100644 "), "a regular file at the branch head");
        assertTrue(Files.isSymbolicLink(f), "the link stays");
    }

    /**
     * The same bytes committed with git: the capture opens the drift item and memoryd's commit puts
     * the recorded text back at the branch head. Before, the commit's bytes were decoded leniently
     * and recorded as the human's edit, with U+FFFD in place of their character.
     */
    @Test
    void aCommitInAnotherEncoding_isDrift_andTheBranchKeepsTheRecordedText() throws Exception {
        root(false);
        String good = root.file(YOUNG);
        byte[] latin1 = saveInLatin1(good);
        root.git("commit", "-qam", "human: a question in Latin-1");
        JsonNode w = write(append(CRITIC, "Triggers", "Deadlines"));
        assertTrue(w.has("result"), w.toString());
        String head = root.git("show", "HEAD:" + YOUNG);
        assertFalse(head.contains("\ufffd"), "no replacement character recorded");
        assertEquals(good, head, "the branch keeps the recorded text");
        assertEquals(1, root.call("drift.list", null).get("result").get("items").size());
        assertTrue(java.util.Arrays.equals(latin1, Files.readAllBytes(root.dir.resolve(YOUNG))), "the bytes stay");
    }

    /**
     * A text a maintainer dismissed from the drift queue, committed by the human afterwards: the
     * commit puts it in the branch, so memoryd's next commit puts the recorded text back under a new
     * drift item (the dismissal said the file may hold it on disk, not that the branch may), and the
     * agent's write in that batch goes through.
     */
    @Test
    void aDismissedDriftTextCommittedLater_isFlaggedAgain_andTheBranchKeepsTheRecordedText() throws Exception {
        root(false);
        String good = root.file(CRITIC);
        Files.writeString(root.dir.resolve(CRITIC), withoutChangeLog(good));
        JsonNode refused = write(append(CRITIC, "Triggers", "Deadlines"));
        String id = refused.path("error").path("data").path("drift_id").asText();
        JsonNode r = root.call("drift.resolve", "{\"id\":\"" + id + "\",\"resolution\":\"dismiss\"}");
        assertTrue(r.has("result"), r.toString());
        assertEquals(0, root.call("drift.list", null).get("result").get("items").size());

        root.git("commit", "-qam", "human: the change log goes, in a commit");
        JsonNode w = write(append(YOUNG, "Open Questions", "beside the commit"));
        assertTrue(w.has("result"), w.toString());
        assertEquals(good, root.git("show", "HEAD:" + CRITIC), "the branch keeps the recorded text");
        JsonNode items = root.call("drift.list", null).get("result").get("items");
        assertEquals(1, items.size(), items::toString);
        assertFalse(items.get(0).get("id").asText().equals(id), "a new item, not the dismissed one");
    }
}
