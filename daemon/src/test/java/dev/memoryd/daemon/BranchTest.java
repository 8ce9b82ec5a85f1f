package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** Branches are Git branches with their own ledger chains, over the socket, checked with git. */
class BranchTest extends ServedRootTest {
    static final String OVERVIEW = "users/sam/overview.md";

    private JsonNode ok(JsonNode r) {
        assertTrue(r.has("result"), r.toString());
        return r.get("result");
    }

    private String reason(JsonNode r) {
        assertTrue(r.has("error"), r.toString());
        return r.get("error").get("data").get("reason").asText();
    }

    private JsonNode replace(String branch, String section, String content) throws Exception {
        return root.call(
                "write",
                "{\"rationale\":\"r\",\"actor\":\"agent-1\"" + (branch == null ? "" : ",\"branch\":\"" + branch + "\"")
                        + ",\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + OVERVIEW + "\",\"section\":\"" + section
                        + "\",\"content\":\"" + content + "\"}]}");
    }

    private long ledgerLines() throws Exception {
        JsonNode v = ok(root.call("ledger.verify", null));
        assertTrue(v.get("ok").asBoolean(), v.toString());
        return v.get("lines").asLong();
    }

    /** git status is clean once the writer has refreshed the index (it does so when writes pause). */
    private void assertClean() throws Exception {
        String st = "";
        for (int i = 0; i < 100; i++) {
            st = root.git("status", "--porcelain");
            if (st.isEmpty()) {
                return;
            }
            Thread.sleep(20);
        }
        assertEquals("", st, "git status shows no change");
    }

    private String main() {
        return root.cfg.branch();
    }

    private void assertReplayOk() throws Exception {
        JsonNode r = ok(root.call("replay", "{\"verify\":true}"));
        assertTrue(r.get("ok").asBoolean(), r.toString());
    }

    @Test
    void create_fromTheCheckedOutBranch_isAGitBranchWhoseChainStartsWithAFork() throws Exception {
        String mainHead = root.git("rev-parse", main()).strip();
        JsonNode c = ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        assertEquals(root.git("rev-parse", "feature").strip(), c.get("head").asText());
        assertEquals(
                mainHead,
                root.git("log", "-1", "--format=%P", "feature").strip(),
                "the fork commit sits on main's head");
        assertEquals(main(), c.get("link").get("branch").asText());
        assertEquals(mainHead, root.git("rev-parse", main()).strip(), "main does not move");
        assertClean();
        JsonNode list = ok(root.call("branch.list", null)).get("branches");
        assertEquals(2, list.size(), list.toString());
        assertEquals("feature", list.get(0).get("name").asText());
        assertEquals(1, list.get(0).get("chain_lines").asLong());
        assertFalse(list.get(0).get("checked_out").asBoolean());
        assertTrue(list.get(1).get("checked_out").asBoolean());
        assertTrue(
                root.git("show", "feature:ledger/feature/0000/00000000.ndjson").contains("\"op\":\"branch_fork\""));
        ledgerLines();
    }

    @Test
    void create_fromAnOlderCommit_startsFromThatCommitsFiles() throws Exception {
        String before = root.file(OVERVIEW);
        String old = root.git("rev-parse", main()).strip();
        ok(replace(null, "Current Focus", "Something new."));
        ok(root.call("branch.create", "{\"name\":\"then\",\"from\":\"" + old + "\"}"));
        assertEquals(old, root.git("log", "-1", "--format=%P", "then").strip());
        assertEquals(before, root.git("show", "then:" + OVERVIEW));
        JsonNode read = ok(
                root.call("read", "{\"path\":\"" + OVERVIEW + "\",\"branch\":\"then\",\"section\":\"current-focus\"}"));
        assertFalse(read.get("content").asText().contains("Something new."), read.toString());
        ledgerLines();
    }

    @Test
    void aWriteToABranchThatIsNotCheckedOut_changesOnlyThatBranch() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        String file = root.file(OVERVIEW);
        String mainHead = root.git("rev-parse", main()).strip();
        long lines = ledgerLines();
        JsonNode w = ok(replace("feature", "Current Focus", "Only on the feature branch."));
        assertEquals(root.git("rev-parse", "feature").strip(), w.get("commit").asText());
        assertEquals(file, root.file(OVERVIEW), "the working tree is not touched");
        assertEquals(mainHead, root.git("rev-parse", main()).strip(), "main is not moved");
        assertClean();
        assertTrue(root.git("show", "feature:" + OVERVIEW).contains("Only on the feature branch."));
        JsonNode read = ok(root.call(
                "read", "{\"path\":\"" + OVERVIEW + "\",\"branch\":\"feature\",\"section\":\"Current Focus\"}"));
        assertTrue(read.get("content").asText().contains("Only on the feature branch."), read.toString());
        JsonNode hist = ok(root.call("history", "{\"path\":\"" + OVERVIEW + "\",\"branch\":\"feature\"}"))
                .get("events");
        assertEquals(1, hist.size(), hist.toString());
        assertEquals("feature", hist.get(0).get("branch").asText());
        assertEquals(lines + 1, ledgerLines());
        assertReplayOk();
    }

    @Test
    void ledgerVerify_coversEveryChain_andATamperedForkLineFails() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"a\"}"));
        ok(root.call("branch.create", "{\"name\":\"b\",\"from\":\"a\"}"));
        ok(replace("b", "Identity", "On b."));
        JsonNode v = ok(root.call("ledger.verify", null));
        assertTrue(v.get("ok").asBoolean(), v.toString());
        java.nio.file.Path seg = root.dir.resolve("ledger/b/0000/00000000.ndjson");
        String text = Files.readString(seg);
        Files.writeString(
                seg,
                text.replaceFirst("\"branch\":\"a\",\"line_hash\"", "\"branch\":\"" + main() + "\",\"line_hash\""));
        JsonNode bad = ok(root.call("ledger.verify", null));
        assertFalse(bad.get("ok").asBoolean(), bad.toString());
        assertEquals("ledger/b/0000/00000000.ndjson", bad.get("file").asText());
        assertEquals(1, bad.get("first_bad_line").asLong());
    }

    @Test
    void delete_removesTheRefOnly_historyAndLedgerStay() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"gone\"}"));
        ok(replace("gone", "Identity", "Written before deletion."));
        long lines = ledgerLines();
        JsonNode d = ok(root.call("branch.delete", "{\"name\":\"gone\"}"));
        assertFalse(root.git("branch", "--list").contains("gone"));
        assertTrue(root.git("show", "refs/memoryd/deleted/gone:" + OVERVIEW).contains("Written before deletion."));
        assertEquals(3, d.get("chain_lines").asLong());
        assertEquals(lines + 1, ledgerLines(), "the deletion is one more ledger line; nothing is removed");
        assertTrue(Files.readString(root.dir.resolve("ledger/gone/0000/00000000.ndjson"))
                .contains("\"op\":\"branch_delete\""));
        JsonNode write = replace("gone", "Identity", "x");
        assertEquals("not_found", reason(write));
        // not "branch.create makes one": the name stays with its chain, which create refuses
        JsonNode again = root.call("branch.delete", "{\"name\":\"gone\"}");
        for (JsonNode r : new JsonNode[] {write, again}) {
            assertEquals("not_found", reason(r));
            assertTrue(
                    r.at("/error/message")
                            .asText()
                            .contains("was deleted (its last head is kept as refs/memoryd/deleted/gone)"),
                    r.toString());
        }
        assertEquals("conflict", reason(root.call("branch.create", "{\"name\":\"gone\"}")));
        assertEquals(1, ok(root.call("branch.list", null)).get("branches").size());
    }

    /** Branch {@code feature} changes Current Focus, main changes Identity; returns both heads (main, feature). */
    private String[] divergedFeature() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Current Focus", "Focus from the feature branch."));
        ok(replace(null, "Identity", "Identity from main."));
        String featureHead = root.git("rev-parse", "feature").strip();
        String mainHead = root.git("rev-parse", main()).strip();
        return new String[] {mainHead, featureHead};
    }

    @Test
    void cleanMerge_makesATwoParentCommit_withBothSidesSections() throws Exception {
        String[] heads = divergedFeature();
        String mainHead = heads[0];
        String featureHead = heads[1];
        JsonNode m = ok(root.call("branch.merge", "{\"from\":\"feature\"}"));
        assertTrue(m.get("changed").asBoolean(), m.toString());
        assertEquals(m.get("commit").asText(), root.git("rev-parse", main()).strip());
        assertEquals(
                mainHead + " " + featureHead,
                root.git("log", "-1", "--format=%P").strip());
        String merged = root.file(OVERVIEW);
        assertTrue(merged.contains("Focus from the feature branch.") && merged.contains("Identity from main."), merged);
        assertEquals(merged, root.git("show", "HEAD:" + OVERVIEW));
        assertClean();
        assertTrue(ok(root.call("lint", "{\"path\":\"" + OVERVIEW + "\"}"))
                .get("problems")
                .isEmpty());
        ledgerLines();
        assertReplayOk();
        JsonNode again = ok(root.call("branch.merge", "{\"from\":\"feature\"}"));
        assertFalse(again.get("changed").asBoolean(), again.toString());
    }

    @Test
    void mergeCutOffBeforeItsFilesAndRef_isRolledForward_overTheHeadsText() throws Exception {
        String[] heads = divergedFeature();
        String mainHead = heads[0];
        String featureHead = heads[1];
        ok(root.call("branch.merge", "{\"from\":\"feature\"}"));
        String merged = root.file(OVERVIEW);
        root.daemon.close();
        root.daemon = null;
        // What a kill after the ledger fsync leaves: the merge's line, the file and the ref as before.
        Files.writeString(root.cfg.root().resolve(OVERVIEW), root.git("show", mainHead + ":" + OVERVIEW));
        Files.writeString(root.cfg.root().resolve(".git/refs/heads/" + main()), mainHead + "\n");

        root.serve();
        assertEquals(
                merged, root.file(OVERVIEW), "the merged text replaced the head's: recovery did not leave it as found");
        assertEquals(merged, root.git("show", "HEAD:" + OVERVIEW));
        assertEquals(
                mainHead + " " + featureHead,
                root.git("log", "-1", "--format=%P").strip());
        Thread.sleep(300); // a wrongly kept old text would be captured as a human's edit by now
        assertEquals(
                mainHead + " " + featureHead,
                root.git("log", "-1", "--format=%P").strip(),
                "no human edit followed");
        assertClean();
        ledgerLines();
        assertReplayOk();
    }

    @Test
    void conflictingMerge_returnsBaseOursTheirs_andChangesNothing_thenResolutionsMerge() throws Exception {
        String base = ok(root.call("read", "{\"path\":\"" + OVERVIEW + "\"}"))
                .get("content")
                .asText();
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Identity", "Theirs."));
        ok(replace("feature", "Current Focus", "Focus from the feature branch."));
        ok(replace(null, "Identity", "Ours."));
        String file = root.file(OVERVIEW);
        String head = root.git("rev-parse", main()).strip();
        long lines = ledgerLines();
        JsonNode c = ok(root.call("branch.merge", "{\"from\":\"feature\",\"into\":\"" + main() + "\"}"));
        JsonNode conflicts = c.get("conflicts");
        assertEquals(1, conflicts.size(), c.toString());
        JsonNode k = conflicts.get(0);
        assertEquals(OVERVIEW, k.get("path").asText());
        assertEquals("identity", k.get("section").asText());
        assertTrue(base.contains(k.get("base").asText()), k.toString());
        assertTrue(k.get("ours").asText().contains("Ours."));
        assertTrue(k.get("theirs").asText().contains("Theirs."));
        assertEquals(file, root.file(OVERVIEW));
        assertEquals(head, root.git("rev-parse", main()).strip());
        assertEquals(lines, ledgerLines());

        JsonNode m = ok(root.call(
                "branch.merge",
                "{\"from\":\"feature\",\"resolutions\":[{\"path\":\"" + OVERVIEW
                        + "\",\"section\":\"identity\",\"take\":\"theirs\"}]}"));
        assertTrue(m.get("changed").asBoolean(), m.toString());
        String merged = root.file(OVERVIEW);
        assertTrue(
                merged.contains("Theirs.")
                        && !merged.contains("Ours.")
                        && merged.contains("Focus from the feature branch."),
                merged);
        assertFalse(merged.contains("<<<<<<<"));
        assertEquals(2, root.git("log", "-1", "--format=%P").strip().split(" ").length);
        ledgerLines();
        assertReplayOk();
    }

    /** {@code branch.merge} of branch {@code feature} into the checked-out one, with {@code resolutions}. */
    private JsonNode mergeFeature(String... resolutions) throws Exception {
        return root.call(
                "branch.merge", "{\"from\":\"feature\",\"resolutions\":[" + String.join(",", resolutions) + "]}");
    }

    /** Branch {@code feature}, made now, and the checked-out branch each change the overview's {@code section}. */
    private void conflictOn(String section, String theirs, String ours) throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", section, theirs));
        ok(replace(null, section, ours));
    }

    /** A resolution of the overview's {@code section}. */
    private static String take(String section, String take) {
        return "{\"path\":\"" + OVERVIEW + "\",\"section\":\"" + section + "\",\"take\":\"" + take + "\"}";
    }

    @Test
    void resolutionsNameASectionByItsHeading_andOneMatchingNoConflictIsRefusedByName() throws Exception {
        conflictOn("Current Focus", "Theirs focus.", "Ours focus.");
        String head = root.git("rev-parse", main()).strip();
        long lines = ledgerLines();
        for (String section : new String[] {"Nope", "Identity"}) { // no such section; a section in no conflict
            JsonNode r = mergeFeature(take(section, "theirs"));
            assertEquals("invalid_request", reason(r), r.toString());
            String msg = r.get("error").get("message").asText();
            assertTrue(msg.contains(OVERVIEW + "#" + section + "=theirs") && msg.contains("current-focus"), msg);
        }
        assertEquals(head, root.git("rev-parse", main()).strip(), "nothing merged");
        assertEquals(lines, ledgerLines());
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        assertEquals(
                0,
                cli(out, "branch", "merge", "feature", "--take", OVERVIEW + "#Current Focus=theirs"),
                out.toString());
        assertTrue(root.file(OVERVIEW).contains("Theirs focus.")
                && !root.file(OVERVIEW).contains("Ours focus."));
        assertReplayOk();
    }

    /**
     * Two resolutions for one conflict (by anchor and by heading, or the same name twice) that
     * disagree: the last one given won without a word, so the order of two flags decided whose
     * text was kept.
     */
    @Test
    void twoResolutionsThatDisagreeForOneConflict_areRefused_namingBoth_andNothingIsMerged() throws Exception {
        conflictOn("Identity", "Theirs.", "Ours.");
        String head = root.git("rev-parse", main()).strip();
        long lines = ledgerLines();
        String[][] pairs = {{"identity", "Identity"}, {"identity", "identity"}};
        for (String[] pair : pairs) {
            JsonNode r = mergeFeature(take(pair[0], "ours"), take(pair[1], "theirs"));
            assertEquals("invalid_request", reason(r), r.toString());
            String msg = r.get("error").get("message").asText();
            assertTrue(
                    msg.contains("two resolutions for " + OVERVIEW + "#identity (" + pair[0] + "=ours and " + pair[1]
                            + "=theirs)"),
                    msg);
        }
        assertEquals(head, root.git("rev-parse", main()).strip(), "nothing merged");
        assertEquals(lines, ledgerLines());
        JsonNode same = ok(mergeFeature(take("identity", "theirs"), take("Identity", "theirs")));
        assertTrue(same.get("changed").asBoolean(), "two that agree are one: " + same);
        assertTrue(root.file(OVERVIEW).contains("Theirs."));
    }

    /**
     * After a merge, {@code history} of a section the merge changed named the losing side's write
     * as its last change (the merge, which wrote the text {@code read} shows, was not listed), and
     * the file's history left the merge out too.
     */
    @Test
    void history_ofASectionAMergeChanged_listsTheMergeFirst_andOnlyForTheSectionsItChanged() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Identity", "Identity from the feature."));
        ok(replace(null, "Current Focus", "Focus written on main."));
        JsonNode m = ok(root.call("branch.merge", "{\"from\":\"feature\"}"));
        String mergeId = m.get("event_id").asText();

        for (String section : new String[] {"identity", "Identity"}) {
            JsonNode h = ok(root.call(
                    "history", "{\"path\":\"" + OVERVIEW + "\",\"section\":\"" + section + "\",\"limit\":5}"));
            assertEquals(mergeId, h.at("/events/0/event_id").asText(), section + ": " + h);
        }
        JsonNode focus =
                ok(root.call("history", "{\"path\":\"" + OVERVIEW + "\",\"section\":\"current-focus\",\"limit\":5}"));
        assertEquals("replace_section", focus.at("/events/0/op").asText(), "the merge left Focus alone: " + focus);
        JsonNode file = ok(root.call("history", "{\"path\":\"" + OVERVIEW + "\",\"limit\":5}"));
        assertEquals(mergeId, file.at("/events/0/event_id").asText(), file.toString());

        JsonNode sections = ok(
                root.call("sections.history", "{\"path\":\"" + OVERVIEW + "\",\"section\":\"Identity\",\"limit\":5}"));
        assertTrue(sections.toString().contains(mergeId), sections.toString());
    }

    /**
     * {@code replay --verify} on a root with another branch checked out replayed the served
     * branch's chain and compared it with the checked-out branch's files: "DIFFERS", exit 1, where
     * nothing differed.
     */
    @Test
    void replayVerify_withAnotherBranchCheckedOut_replaysThatBranchsChain() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Identity", "Identity on the feature."));
        root.close();
        root.git("checkout", "-q", "feature");
        assertTrue(root.file(OVERVIEW).contains("Identity on the feature."));

        Cli.Run r = Cli.run(root.cliArgs("replay", "--verify"));

        assertEquals(0, r.code(), r.toString());
        assertFalse(r.out().contains("DIFFERS"), r.toString());
        assertEquals("", root.git("status", "--porcelain"), "a check changes nothing");
    }

    @Test
    void mergeWithNewContent_takesTheCallersSection() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Identity", "Theirs."));
        ok(replace(null, "Identity", "Ours."));
        String content = "## Identity\\n<!-- @anchor: identity v1 -->\\n\\nBoth, reconciled.\\n\\n";
        JsonNode m = ok(root.call(
                "branch.merge",
                "{\"from\":\"feature\",\"resolutions\":[{\"path\":\"" + OVERVIEW
                        + "\",\"section\":\"identity\",\"take\":\"content\",\"content\":\"" + content + "\"}]}"));
        assertTrue(m.get("changed").asBoolean(), m.toString());
        assertTrue(root.file(OVERVIEW).contains("Both, reconciled."));
        assertReplayOk();
    }

    @Test
    void mergeIntoABranchThatIsNotCheckedOut_leavesTheWorkingTreeAlone() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Current Focus", "Feature focus."));
        ok(replace(null, "Identity", "Main identity."));
        String file = root.file(OVERVIEW);
        JsonNode m = ok(root.call("branch.merge", "{\"from\":\"" + main() + "\",\"into\":\"feature\"}"));
        assertEquals(root.git("rev-parse", "feature").strip(), m.get("commit").asText());
        String onFeature = root.git("show", "feature:" + OVERVIEW);
        assertTrue(onFeature.contains("Feature focus.") && onFeature.contains("Main identity."), onFeature);
        assertEquals(file, root.file(OVERVIEW));
        assertClean();
        ledgerLines();
    }

    @Test
    void badInput_getsAPreciseError_andChangesNothing() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        long lines = ledgerLines();
        String head = root.git("rev-parse", main()).strip();
        assertEquals("not_found", reason(replace("nope", "Identity", "x")));
        assertEquals("not_found", reason(root.call("read", "{\"path\":\"" + OVERVIEW + "\",\"branch\":\"nope\"}")));
        assertEquals("invalid_request", reason(root.call("branch.create", "{\"name\":\"bad..name\"}")));
        assertEquals("invalid_request", reason(root.call("branch.create", "{\"name\":\"x\",\"bogus\":1}")));
        assertEquals("conflict", reason(root.call("branch.create", "{\"name\":\"feature\"}")));
        assertEquals("invalid_request", reason(root.call("branch.create", "{\"name\":\"feature/sub\"}")));
        assertEquals("invalid_request", reason(root.call("branch.create", "{\"name\":\"" + main() + "/sub\"}")));
        assertEquals("not_found", reason(root.call("branch.create", "{\"name\":\"y\",\"from\":\"nowhere\"}")));
        assertEquals(
                "invalid_request", reason(root.call("branch.merge", "{\"from\":\"feature\",\"into\":\"feature\"}")));
        assertEquals("not_found", reason(root.call("branch.merge", "{\"from\":\"nope\"}")));
        assertEquals("not_found", reason(root.call("branch.merge", "{\"from\":\"feature\",\"into\":\"nope\"}")));
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "branch.merge",
                        "{\"from\":\"feature\",\"resolutions\":[{\"path\":\"" + OVERVIEW
                                + "\",\"section\":\"identity\",\"take\":\"mine\"}]}")));
        assertEquals("invalid_request", reason(root.call("branch.delete", "{\"name\":\"" + main() + "\"}")));
        assertEquals("not_found", reason(root.call("branch.delete", "{\"name\":\"nope\"}")));
        assertEquals(lines, ledgerLines());
        assertEquals(head, root.git("rev-parse", main()).strip());
        assertEquals(2, ok(root.call("branch.list", null)).get("branches").size());
    }

    private int cli(java.io.ByteArrayOutputStream out, String... args) {
        java.io.PrintStream old = System.out;
        System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            java.util.List<String> full = new java.util.ArrayList<>(java.util.List.of(args));
            full.addAll(java.util.List.of(
                    "--root",
                    root.dir.toString(),
                    "--key-file",
                    root.cfg.keyFile().toString()));
            return dev.memoryd.daemon.cli.Main.run(full.toArray(String[]::new));
        } finally {
            System.setOut(old);
        }
    }

    @Test
    void cli_createsListsMergesAndDeletesBranches_conflictsExitOne() throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        assertEquals(0, cli(out, "branch", "create", "feature"));
        ok(replace("feature", "Identity", "Theirs."));
        ok(replace(null, "Identity", "Ours."));
        assertEquals(0, cli(out, "branch", "list"));
        assertTrue(out.toString().contains("* " + main()) && out.toString().contains("  feature"), out.toString());
        assertEquals(1, cli(out, "branch", "merge", "feature"));
        assertTrue(out.toString().contains("\"conflicts\""), out.toString());
        assertEquals(0, cli(out, "branch", "merge", "feature", "--take", OVERVIEW + "#identity=ours"));
        assertTrue(root.file(OVERVIEW).contains("Ours."));
        assertEquals(0, cli(out, "branch", "delete", "feature"));
        assertEquals(1, ok(root.call("branch.list", null)).get("branches").size());
    }

    @Test
    void mergeIntoTheCheckedOutBranch_recordsAHumansUncapturedEditFirst_andKeepsIt() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Current Focus", "Feature focus."));
        String t = root.file(OVERVIEW);
        Files.writeString(root.dir.resolve(OVERVIEW), t.replace("graphic designer", "graphic designer and runner"));
        ok(root.call("branch.merge", "{\"from\":\"feature\"}"));
        String merged = root.file(OVERVIEW);
        assertTrue(merged.contains("graphic designer and runner") && merged.contains("Feature focus."), merged);
        JsonNode hist = ok(root.call("history", "{\"path\":\"" + OVERVIEW + "\",\"limit\":2}"))
                .get("events");
        assertEquals("branch_merge", hist.get(0).get("op").asText(), hist.toString());
        assertEquals("human_edit", hist.get(1).get("op").asText(), "recorded before the merge: " + hist);
        assertReplayOk();
    }

    @Test
    void aHumansUncapturedEditOfASectionTheBranchChanged_isAConflict_notOverwritten() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Identity", "Theirs."));
        String t = root.file(OVERVIEW);
        String human = t.replace("graphic designer", "graphic designer and runner");
        Files.writeString(root.dir.resolve(OVERVIEW), human);
        JsonNode c = ok(root.call("branch.merge", "{\"from\":\"feature\"}"));
        assertEquals("identity", c.get("conflicts").get(0).get("section").asText(), c.toString());
        assertTrue(c.get("conflicts").get(0).get("ours").asText().contains("and runner"));
        assertEquals(human, root.file(OVERVIEW));
    }

    @Test
    void restart_finishesACreateWhoseRefNeverCame_andADeleteWhoseRefStayed() throws Exception {
        String made = ok(root.call("branch.create", "{\"name\":\"made\"}"))
                .get("head")
                .asText();
        ok(root.call("branch.create", "{\"name\":\"gone\"}"));
        String goneTip = ok(root.call("branch.delete", "{\"name\":\"gone\"}"))
                .get("head")
                .asText();
        root.close();
        // As if the daemon died after the fork line was fsynced but before its ref existed, and after
        // the deletion's commit but before its ref was retired.
        root.git("update-ref", "-d", "refs/heads/made");
        root.git("update-ref", "refs/heads/gone", goneTip);
        root.serve();
        JsonNode list = ok(root.call("branch.list", null)).get("branches");
        assertEquals(2, list.size(), list.toString());
        assertEquals("made", list.get(0).get("name").asText());
        assertEquals(made.length(), list.get(0).get("head").asText().length());
        assertEquals(
                root.git("rev-parse", main()).strip(),
                root.git("log", "-1", "--format=%P", "made").strip());
        ok(replace("made", "Identity", "After the restart."));
        ledgerLines();
    }

    @Test
    void aForkedBranch_servedAsTheCheckedOutOne_replaysItsParentsLinesUpToTheForkThenItsOwn() throws Exception {
        ok(replace(null, "Identity", "Main, before the fork."));
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Current Focus", "Feature focus."));
        root.close();
        root.git("checkout", "-q", "feature");
        root.configure(c -> c.withBranch("feature"));
        root.serve();
        assertTrue(root.file(OVERVIEW).contains("Feature focus.")
                && root.file(OVERVIEW).contains("Main, before the fork."));
        assertReplayOk();
        ok(replace(null, "Identity", "Feature, served."));
        assertReplayOk();
        ledgerLines();
    }

    private JsonNode search(String extra) throws Exception {
        return ok(root.call("search", "{\"q\":\"zebrafish\"" + extra + "}")).get("hits");
    }

    @Test
    void search_answersAsOfACommit_orFromAnotherBranch_readOnly() throws Exception {
        String before = root.git("rev-parse", main()).strip();
        ok(replace(null, "Current Focus", "Studying zebrafish on main."));
        String after = root.git("rev-parse", main()).strip();
        ok(root.call("branch.create", "{\"name\":\"feature\",\"from\":\"" + before + "\"}"));
        ok(replace("feature", "Identity", "A zebrafish keeper on the feature branch."));
        assertEquals(1, search("").size());
        assertEquals(0, search(",\"at\":\"" + before + "\"").size());
        JsonNode then = search(",\"at\":\"" + after + "\"");
        assertEquals(1, then.size(), then.toString());
        assertEquals("current-focus", then.get(0).get("anchor").asText());
        JsonNode onFeature = search(",\"branch\":\"feature\"");
        assertEquals(1, onFeature.size(), onFeature.toString());
        assertEquals("identity", onFeature.get(0).get("anchor").asText());
        assertEquals("feature", onFeature.get(0).get("branch").asText());
        assertEquals("not_found", reason(root.call("search", "{\"q\":\"x\",\"at\":\"0123456789abcdef\"}")));
        assertEquals(after, root.git("rev-parse", main()).strip());
    }

    @Test
    void ledgerVerify_findsLinesCutOffTheEndOfABranchesChain() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Identity", "One."));
        ok(replace("feature", "Identity", "Two."));
        java.nio.file.Path seg = root.dir.resolve("ledger/feature/0000/00000000.ndjson");
        java.util.List<String> lines = Files.readAllLines(seg);
        Files.writeString(seg, String.join("\n", lines.subList(0, 2)) + "\n");
        JsonNode bad = ok(root.call("ledger.verify", null));
        assertFalse(bad.get("ok").asBoolean(), bad.toString());
        assertEquals("truncated", bad.get("reason").asText(), bad.toString());
        assertEquals("ledger/feature/0000/00000000.ndjson", bad.get("file").asText());
    }

    @Test
    void aMergeWhoseRefNeverMoved_isRolledForwardAtRestart_withBothParents() throws Exception {
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        ok(replace("feature", "Current Focus", "Feature focus."));
        ok(replace(null, "Identity", "Main identity."));
        String before = root.git("rev-parse", main()).strip();
        String feature = root.git("rev-parse", "feature").strip();
        ok(root.call("branch.merge", "{\"from\":\"feature\"}"));
        String merged = root.file(OVERVIEW);
        root.close();
        // As if killed after the ledger fsync and the file renames, before the ref moved.
        root.git("update-ref", "refs/heads/" + main(), before);
        root.serve();
        assertEquals(
                before + " " + feature, root.git("log", "-1", "--format=%P").strip());
        assertEquals(merged, root.file(OVERVIEW));
        assertEquals(merged, root.git("show", "HEAD:" + OVERVIEW));
        ledgerLines();
        assertReplayOk();
    }

    private JsonNode declare(String json) throws Exception {
        return root.call("declare", json.replace('\'', '"'));
    }

    private void serveAs(String branch) throws Exception {
        root.configure(c -> new MemorydConfig(
                c.root(),
                c.keyFile(),
                branch,
                c.templatesDir(),
                c.maxLineBytes(),
                c.idleTimeout(),
                c.maxBatch(),
                c.segmentLines(),
                c.clock(),
                c.random(),
                c.halfLife(),
                c.quiet(),
                c.rescanEvery()));
        root.serveAsIs();
    }

    /**
     * Declares {@code decl} on {@code branch}, which declare allows only while that branch is checked
     * out and served: the daemon stops, git checks the branch out, a daemon serves it, then the same
     * back. Checking main out again removes the branch's chain from disk (only its tree tracks it;
     * main excludes it), so it is written back from that tree, as the daemon had left it.
     */
    private JsonNode declareOn(String branch, String decl) throws Exception {
        String home = main();
        root.close();
        root.git("checkout", "-q", branch);
        serveAs(branch);
        JsonNode r = ok(declare(decl));
        root.close();
        root.git("checkout", "-q", home);
        for (String p : root.git("ls-tree", "-r", "--name-only", branch, "ledger/" + branch + "/")
                .split("\n")) {
            Files.createDirectories(root.dir.resolve(p).getParent());
            Files.writeString(root.dir.resolve(p), root.git("show", branch + ":" + p));
        }
        serveAs(home);
        return r;
    }

    /** Every chunk file on disk, by name, with its text. */
    private java.util.Map<String, String> chunkFiles() throws Exception {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        try (java.util.stream.Stream<java.nio.file.Path> s = Files.list(root.dir.resolve(".slices"))) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) s::iterator) {
                out.put(p.getFileName().toString(), Files.readString(p));
            }
        }
        return out;
    }

    private java.util.List<String> namesOn(String scope) throws Exception {
        java.util.List<String> out = new java.util.ArrayList<>();
        ok(root.call("scope", "{\"scopes\":[\"" + scope + "\"]}"))
                .get("chunks")
                .forEach(c -> out.add(c.path("name").asText()));
        java.util.Collections.sort(out);
        return out;
    }

    @Test
    void aMergeThatWouldTakeOneNameTwiceInAScope_isASpecViolation_recordingNothing_andMergesOnceOneIsRenamed()
            throws Exception {
        ok(declare("{'chunks':[{'name':'topic'}]}"));
        String topic = ok(root.call("scope", "{\"scopes\":[\"topic\"]}"))
                .get("scopes")
                .get(0)
                .get("id")
                .asText();
        ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        String theirs = declareOn(
                        "feature",
                        "{'chunks':[{'name':'x','body':{'side':'feature'},'placements':[{'scope':'topic'}]}]}")
                .get("created")
                .get(0)
                .get("id")
                .asText();
        String ours = ok(declare("{'chunks':[{'name':'x','body':{'side':'main'},'placements':[{'scope':'topic'}]}]}"))
                .get("created")
                .get(0)
                .get("id")
                .asText();
        String head = root.git("rev-parse", main()).strip();
        String featureHead = root.git("rev-parse", "feature").strip();
        java.util.Map<String, String> files = chunkFiles();
        long lines = ledgerLines();

        JsonNode refused = root.call("branch.merge", "{\"from\":\"feature\"}");
        assertEquals("spec_violation", reason(refused));
        JsonNode data = refused.get("error").get("data");
        assertEquals("name", data.get("rule").asText(), refused.toString());
        assertEquals(theirs, data.get("chunk").asText(), "the chunk the merge brings");
        assertEquals("x", data.get("chunk_name").asText());
        assertEquals(topic, data.get("scope").asText());
        String message = refused.get("error").get("message").asText();
        assertTrue(message.contains(ours) && message.contains(theirs) && message.contains("removals"), message);
        assertEquals(head, root.git("rev-parse", main()).strip(), "no commit");
        assertEquals(lines, ledgerLines(), "no ledger line");
        assertEquals(files, chunkFiles(), "no file");
        assertClean();
        assertEquals(java.util.List.of("x"), namesOn("topic"));

        // The same merge the other way, into the branch that is not checked out (its graph is read from its tree).
        JsonNode back = root.call("branch.merge", "{\"from\":\"" + main() + "\",\"into\":\"feature\"}");
        assertEquals("spec_violation", reason(back));
        assertEquals("name", back.get("error").get("data").get("rule").asText());
        assertEquals(ours, back.get("error").get("data").get("chunk").asText());
        assertEquals(featureHead, root.git("rev-parse", "feature").strip());
        assertEquals(lines, ledgerLines());

        // As the message says: rename one of them, and the merge is clean.
        ok(declare("{'chunks':[{'id':'" + ours + "','name':'x-main'}]}"));
        JsonNode m = ok(root.call("branch.merge", "{\"from\":\"feature\"}"));
        assertTrue(m.get("changed").asBoolean(), m.toString());
        assertEquals(java.util.List.of("x", "x-main"), namesOn("topic"));
        assertTrue(Files.exists(root.dir.resolve(".slices/" + theirs + ".slice")));
        assertClean();
        ledgerLines();
        assertReplayOk();
    }

    @Test
    void everyBranchResult_keepsItsWireKeysInOrder() throws Exception {
        JsonNode created = ok(root.call("branch.create", "{\"name\":\"feature\"}"));
        assertEquals(
                java.util.List.of("name", "head", "from", "from_commit", "event_id", "link"), TestRoot.keys(created));
        assertEquals(java.util.List.of("branch", "seq", "line_hash"), TestRoot.keys(created.get("link")));
        JsonNode list = ok(root.call("branch.list", null));
        assertEquals(java.util.List.of("branches"), TestRoot.keys(list));
        assertEquals(
                java.util.List.of("name", "head", "checked_out", "chain_lines"),
                TestRoot.keys(list.get("branches").get(0)));
        ok(replace("feature", "Identity", "Theirs."));
        ok(replace(null, "Identity", "Ours."));
        JsonNode conflict = ok(root.call("branch.merge", "{\"from\":\"feature\"}"));
        assertEquals(java.util.List.of("conflicts", "message"), TestRoot.keys(conflict));
        assertEquals(
                java.util.List.of("path", "section", "base", "ours", "theirs"),
                TestRoot.keys(conflict.get("conflicts").get(0)));
        JsonNode merged = ok(root.call(
                "branch.merge",
                "{\"from\":\"feature\",\"resolutions\":[{\"path\":\"" + OVERVIEW
                        + "\",\"section\":\"identity\",\"take\":\"theirs\"}]}"));
        assertEquals(java.util.List.of("commit", "changed", "event_id"), TestRoot.keys(merged));
        JsonNode again = ok(root.call("branch.merge", "{\"from\":\"feature\"}"));
        assertEquals(java.util.List.of("commit", "changed", "message"), TestRoot.keys(again));
        assertTrue(PayloadLines.assertRoundTrip(root.dir) >= 1, "the fork line, read back typed, is the same bytes");
        assertTrue(PayloadLines.assertTyped(root.dir) >= 3, "the fork and merge lines, read back typed, parse");
        JsonNode deleted = ok(root.call("branch.delete", "{\"name\":\"feature\"}"));
        assertEquals(
                java.util.List.of("name", "head", "retired_ref", "event_id", "chain_lines"), TestRoot.keys(deleted));
    }
}
