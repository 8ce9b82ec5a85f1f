package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code sync}: two daemons on two roots, one bare repository on disk between
 * them, real sockets and the real git CLI for checks.
 */
class SyncTest extends TwoRootsTest {
    static final String CRITIC_NOTES = "users/sam/parts/inner-critic/notes.md";
    static final String YOUNG_NOTES = "users/sam/parts/young-one/notes.md";
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    private static JsonNode row(JsonNode syncResult, String branch) {
        for (JsonNode x : syncResult.get("branches")) {
            if (x.get("branch").asText().equals(branch)) {
                return x;
            }
        }
        throw new AssertionError("no row for " + branch + " in " + syncResult);
    }

    private static JsonNode appendItem(TestRoot r, String path, String item) throws Exception {
        return r.call(
                "write",
                "{\"rationale\":\"r\",\"actor\":\"agent\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + path
                        + "\",\"section\":\"Inbox\",\"item\":\"" + item + "\"}]}");
    }

    private static JsonNode replaceRole(TestRoot r, String text) throws Exception {
        return r.call(
                "write",
                "{\"rationale\":\"r\",\"actor\":\"agent\",\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + CRITIC
                        + "\",\"section\":\"Role\",\"content\":\"" + text + "\"}]}");
    }

    private static Map<String, String> memoryFiles(TestRoot r) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(r.dir.resolve("users"))) {
            for (Path p : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                out.put(r.dir.relativize(p).toString(), Files.readString(p));
            }
        }
        return out;
    }

    private static void assertVerifies(TestRoot r) throws Exception {
        JsonNode v = ok(r.call("ledger.verify", null));
        assertTrue(v.get("ok").asBoolean(), v.toString());
        JsonNode replay = ok(r.call("replay", "{\"verify\":true}"));
        assertTrue(replay.get("ok").asBoolean(), replay.toString());
    }

    /** Syncs A, B, A, ... until a round changes nothing on either side; returns the rounds it took. */
    private int settle() throws Exception {
        for (int round = 1; round <= 6; round++) {
            String headA = a.git("rev-parse", "main").strip();
            String headB = b.git("rev-parse", "main").strip();
            JsonNode sa = ok(sync(a));
            JsonNode sb = ok(sync(b));
            assertTrue(sa.get("ok").asBoolean(), sa.toString());
            assertTrue(sb.get("ok").asBoolean(), sb.toString());
            if (headA.equals(a.git("rev-parse", "main").strip())
                    && headB.equals(b.git("rev-parse", "main").strip())
                    && row(sa, "main").get("outcome").asText().equals("up_to_date")
                    && row(sb, "main").get("outcome").asText().equals("up_to_date")) {
                return round;
            }
        }
        throw new AssertionError("two replicas that sync in turn never settled");
    }

    @Test
    void twoReplicas_writingConcurrently_bothHoldEveryWrite_andBothLedgersVerify() throws Exception {
        int n = 24;
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            Callable<Void> writerA = () -> {
                for (int i = 0; i < n; i++) {
                    assertTrue(appendItem(a, CRITIC_NOTES, "from a " + i).has("result"));
                    if (i % 8 == 7) {
                        assertFalse(sync(a).has("error")); // syncs while the other root writes and syncs
                    }
                }
                return null;
            };
            Callable<Void> writerB = () -> {
                for (int i = 0; i < n; i++) {
                    assertTrue(appendItem(b, YOUNG_NOTES, "from b " + i).has("result"));
                    if (i % 8 == 3) {
                        assertFalse(sync(b).has("error"));
                    }
                }
                return null;
            };
            Callable<Void> writerA2 = () -> { // another client of a, writing while a syncs
                for (int i = 0; i < n; i++) {
                    assertTrue(a.call(
                                    "write",
                                    "{\"rationale\":\"r\",\"actor\":\"agent\",\"ops\":[{\"op\":\"append_item\","
                                            + "\"path\":\"" + CRITIC + "\",\"section\":\"Triggers\",\"item\":\"a2 " + i
                                            + "\"}]}")
                            .has("result"));
                }
                return null;
            };
            List<Future<Void>> fs =
                    new ArrayList<>(List.of(pool.submit(writerA), pool.submit(writerB), pool.submit(writerA2)));
            for (Future<Void> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        int rounds = settle();
        assertTrue(rounds <= 3, "settled in " + rounds + " rounds");

        Map<String, String> filesA = memoryFiles(a);
        assertEquals(filesA, memoryFiles(b), "both roots hold the same memory files");
        for (int i = 0; i < n; i++) {
            assertTrue(filesA.get(CRITIC_NOTES).contains("from a " + i + "\n"), "a's write " + i);
            assertTrue(filesA.get(YOUNG_NOTES).contains("from b " + i + "\n"), "b's write " + i);
            assertTrue(filesA.get(CRITIC).contains("a2 " + i + "\n"), "a's second client's write " + i);
        }
        assertVerifies(a);
        assertVerifies(b);
        // Each root's ledger holds the other's chain, whose lines are the other's writes.
        String bChainOnA = a.git("show", "main:ledger/main@b/0000/00000000.ndjson");
        assertTrue(bChainOnA.contains("\"op\":\"branch_fork\""), "b's chain starts with its fork");
        assertTrue(bChainOnA.contains("from b 0"), bChainOnA);
        assertTrue(b.git("show", "main:ledger/main/0000/00000000.ndjson").contains("from a 0"));
        assertEquals(
                a.git("show", "main:ledger/main@b/0000/00000000.ndjson"),
                Files.readString(b.dir.resolve("ledger/main@b/0000/00000000.ndjson"))
                        .substring(0, bChainOnA.length()),
                "a holds a prefix of b's own chain file, byte for byte");
        assertEquals(
                a.git("rev-parse", "main^{tree}").strip(),
                b.git("rev-parse", "main^{tree}").strip(),
                "settled roots hold the same tree");
        a.git("fsck", "--full");
        b.git("fsck", "--full");
        assertEquals("", a.git("status", "--porcelain", "--", "users", "ledger").strip());
        assertEquals("", b.git("status", "--porcelain", "--", "users", "ledger").strip());

        JsonNode found = ok(a.call("search", "{\"q\":\"from b 5\"}"));
        assertTrue(found.toString().contains(YOUNG_NOTES), "b's writes are searchable on a: " + found);

        // Both restart: recovery finds each root's own published head among the other's commits.
        a.close();
        b.close();
        a.serveAsIs();
        b.serveAsIs();
        assertVerifies(a);
        assertVerifies(b);
        assertTrue(appendItem(a, CRITIC_NOTES, "after restart a").has("result"));
        JsonNode late = ok(appendItem(b, YOUNG_NOTES, "after restart b"));
        settle();
        JsonNode resolved = ok(a.call(
                "resolve",
                "{\"token\":\"" + late.get("events").get(0).get("token").asText() + "\"}"));
        assertEquals(
                late.get("events").get(0).get("event_id").asText(),
                resolved.get("event_id").asText(),
                "an evidence token of b's resolves on a");
        assertEquals(memoryFiles(a), memoryFiles(b));
        assertTrue(a.file(YOUNG_NOTES).contains("after restart b"));
        assertVerifies(a);
        assertVerifies(b);
    }

    @Test
    void sameSection_changedOnBothReplicas_isAConflict_andTheCallerResolvesIt() throws Exception {
        assertTrue(replaceRole(a, "A says the critic guards.").has("result"));
        assertTrue(replaceRole(b, "B says the critic pushes.").has("result"));
        ok(sync(a));
        String headB = b.git("rev-parse", "main").strip();
        String fileB = b.file(CRITIC);
        Path ownChain = b.dir.resolve("ledger/main@b/0000/00000000.ndjson");
        String chainB = Files.readString(ownChain);

        JsonNode s = ok(sync(b));
        assertFalse(s.get("ok").asBoolean(), s.toString());
        JsonNode main = row(s, "main");
        assertEquals("conflict", main.get("outcome").asText(), s.toString());
        JsonNode c = main.get("conflicts").get(0);
        assertEquals(CRITIC, c.get("path").asText());
        assertEquals("role", c.get("section").asText());
        assertTrue(c.get("theirs").asText().contains("A says"), c.toString());
        assertTrue(c.get("ours").asText().contains("B says"), c.toString());
        assertNothingMergedSince(b, headB, "ledger/main@b/");
        assertEquals(fileB, b.file(CRITIC), "no conflict markers, no change");
        assertEquals(chainB, Files.readString(ownChain), "nothing recorded on b's chain");
        assertTrue(ok(b.call("ledger.verify", null)).get("ok").asBoolean(), "a's lines, brought in, verify");
        assertEquals("not_pushed", main.path("pushed").asText(), "a branch with conflicts is not pushed");

        JsonNode resolved = ok(b.call(
                "sync",
                "{\"remote\":\"origin\",\"resolutions\":[{\"path\":\"" + CRITIC
                        + "\",\"section\":\"role\",\"take\":\"theirs\"}]}"));
        assertTrue(resolved.get("ok").asBoolean(), resolved.toString());
        assertEquals("merged", row(resolved, "main").get("outcome").asText());
        assertTrue(b.file(CRITIC).contains("A says the critic guards."));
        assertFalse(b.file(CRITIC).contains("B says"));
        settle();
        assertEquals(memoryFiles(a), memoryFiles(b));
        assertVerifies(a);
        assertVerifies(b);
    }

    @Test
    void syncTake_namesASectionByItsHeading_andATakeMatchingNoConflictIsRefusedAloud() throws Exception {
        assertTrue(replaceRole(a, "A says the critic guards.").has("result"));
        assertTrue(replaceRole(b, "B says the critic pushes.").has("result"));
        ok(sync(a));
        String head = b.git("rev-parse", "main").strip();
        String[] where = {
            "--root", b.dir.toString(), "--key-file", b.cfg.keyFile().toString()
        };
        Cli.Run wrong = Cli.run(concat(new String[] {"sync", "--take", CRITIC + "#Triggers=theirs"}, where));
        assertEquals(1, wrong.code(), wrong.toString());
        assertTrue(
                wrong.err().contains("#Triggers=theirs matches no conflicting section")
                        && wrong.err().contains("role"),
                wrong.toString());
        assertEquals(head, b.git("rev-parse", "main").strip(), "nothing merged");
        JsonNode noBranch = b.call(
                "sync",
                "{\"remote\":\"origin\",\"resolutions\":{\"nope\":[{\"path\":\"" + CRITIC
                        + "\",\"section\":\"Role\",\"take\":\"theirs\"}]}}");
        assertEquals(
                "invalid_request",
                noBranch.get("error").get("data").get("reason").asText(),
                noBranch.toString());
        Cli.Run byHeading = Cli.run(concat(new String[] {"sync", "--take", CRITIC + "#Role=theirs"}, where));
        assertEquals(0, byHeading.code(), byHeading.toString());
        assertTrue(b.file(CRITIC).contains("A says the critic guards.")
                && !b.file(CRITIC).contains("B says"));
        assertVerifies(b);
    }

    private static String[] concat(String[] x, String[] y) {
        String[] out = java.util.Arrays.copyOf(x, x.length + y.length);
        System.arraycopy(y, 0, out, x.length, y.length);
        return out;
    }

    @Test
    void branchesTravel_aBranchMadeOnOneRootIsStartedOnTheOther_withItsOwnChain() throws Exception {
        ok(a.call("branch.create", "{\"name\":\"idea\"}"));
        assertTrue(a.call(
                        "write",
                        "{\"rationale\":\"r\",\"actor\":\"agent\",\"branch\":\"idea\",\"ops\":[{\"op\":"
                                + "\"append_item\",\"path\":\"" + CRITIC_NOTES
                                + "\",\"section\":\"Inbox\",\"item\":\"on idea\"}]}")
                .has("result"));
        ok(sync(a));
        JsonNode s = ok(sync(b));
        assertEquals("created", row(s, "idea").get("outcome").asText(), s.toString());
        assertTrue(b.git("show", "idea:" + CRITIC_NOTES).contains("on idea"));
        assertTrue(b.git("show", "idea:ledger/idea@b/0000/00000000.ndjson").contains("\"op\":\"branch_fork\""));
        assertTrue(b.call(
                        "write",
                        "{\"rationale\":\"r\",\"actor\":\"agent\",\"branch\":\"idea\",\"ops\":[{\"op\":"
                                + "\"append_item\",\"path\":\"" + YOUNG_NOTES
                                + "\",\"section\":\"Inbox\",\"item\":\"b on idea\"}]}")
                .has("result"));
        ok(sync(b));
        JsonNode back = ok(sync(a));
        assertTrue(back.get("ok").asBoolean(), back.toString());
        assertTrue(a.git("show", "idea:" + YOUNG_NOTES).contains("b on idea"));
        assertFalse(
                a.file(YOUNG_NOTES).contains("b on idea"),
                "a branch that is not checked out leaves the working tree alone");
        assertVerifies(a);
        assertVerifies(b);
    }

    private static JsonNode writeOn(TestRoot r, String branch, String path, String item) throws Exception {
        return r.call(
                "write",
                "{\"rationale\":\"r\",\"actor\":\"agent\",\"branch\":\"" + branch + "\",\"ops\":[{\"op\":"
                        + "\"append_item\",\"path\":\"" + path + "\",\"section\":\"Inbox\",\"item\":\"" + item
                        + "\"}]}");
    }

    private static boolean hasBranch(TestRoot r, String name) throws Exception {
        return r.git("branch", "--list", name).strip().length() > 0;
    }

    private boolean remoteHas(String ref) throws Exception {
        return !run("git", "-C", remote.toString(), "for-each-ref", ref).isBlank();
    }

    /** Branch idea made on a, written to, and synced to b and back (so a has b's fork of it). */
    private void ideaOnBothRoots() throws Exception {
        ok(a.call("branch.create", "{\"name\":\"idea\"}"));
        assertTrue(writeOn(a, "idea", CRITIC_NOTES, "on idea").has("result"));
        ok(sync(a));
        assertEquals("created", row(ok(sync(b)), "idea").get("outcome").asText());
    }

    @Test
    void aBranchDeletedOnOneRoot_isDeletedOnTheRemoteAndOnTheOther_andStaysDeleted() throws Exception {
        ideaOnBothRoots();
        // a deletes without syncing b's fork of idea first: that fork holds ledger lines only, no work.
        ok(a.call("branch.delete", "{\"name\":\"idea\"}"));
        JsonNode sa = ok(sync(a));
        assertTrue(sa.get("ok").asBoolean(), sa.toString());
        JsonNode ra = row(sa, "idea");
        assertEquals("deleted_here", ra.get("outcome").asText(), sa.toString());
        assertTrue(ra.path("remote_deleted").asBoolean(), ra.toString());
        assertFalse(remoteHas("refs/heads/idea"));
        assertEquals(
                a.git("rev-parse", "refs/memoryd/deleted/idea").strip(),
                run("git", "-C", remote.toString(), "rev-parse", "refs/memoryd/deleted/idea")
                        .strip(),
                "a's retired ref travels");

        JsonNode sb = ok(sync(b));
        assertTrue(sb.get("ok").asBoolean(), sb.toString());
        JsonNode rb = row(sb, "idea");
        assertEquals("deleted_by_remote", rb.get("outcome").asText(), sb.toString());
        assertFalse(hasBranch(b, "idea"), b.git("branch"));
        assertEquals(
                rb.get("commit").asText(),
                b.git("rev-parse", "refs/memoryd/deleted/idea").strip());
        List<String> chainB = Files.readAllLines(b.dir.resolve("ledger/idea@b/0000/00000000.ndjson"));
        assertTrue(chainB.get(chainB.size() - 1).contains("\"op\":\"branch_delete\""), chainB.toString());
        assertTrue(b.git("show", "refs/memoryd/deleted/idea:" + CRITIC_NOTES).contains("on idea"), "history stays");
        assertVerifies(a);
        assertVerifies(b);

        for (int round = 0; round < 2; round++) {
            JsonNode again = ok(sync(a));
            JsonNode againB = ok(sync(b));
            assertTrue(again.get("ok").asBoolean() && againB.get("ok").asBoolean(), again + " " + againB);
            assertFalse(
                    again.toString().contains("\"idea\"") || againB.toString().contains("\"idea\""),
                    "no row for a branch gone everywhere: " + again + " " + againB);
        }
        assertFalse(hasBranch(a, "idea"));
        assertFalse(hasBranch(b, "idea"));
        assertFalse(remoteHas("refs/heads/idea"), "not resurrected");
        assertVerifies(b);
    }

    /** A remote that refuses every deletion: the row said "sync again", which can never get through. */
    @Test
    void aRemoteThatRefusesDeletions_keepsTheBranch_andTheRowSaysWhoCanDeleteIt_notToSyncAgain() throws Exception {
        ideaOnBothRoots();
        run("git", "-C", remote.toString(), "config", "receive.denyDeletes", "true");
        ok(a.call("branch.delete", "{\"name\":\"idea\"}"));
        JsonNode sa = ok(sync(a));
        assertFalse(sa.get("ok").asBoolean(), sa.toString());
        JsonNode ra = row(sa, "idea");
        String kept = ra.path("remote_kept").asText();
        assertTrue(
                kept.contains("receive.denyDeletes") && kept.contains("its owner deletes idea there"), ra.toString());
        assertFalse(kept.contains("; sync again"), ra.toString());
        assertTrue(remoteHas("refs/heads/idea"), "the remote keeps it");
    }

    @Test
    void aDeletionMadeWithoutWorkPushedByAnotherRoot_keepsTheRemoteBranch_andThatRootKeepsIt() throws Exception {
        ideaOnBothRoots();
        assertTrue(writeOn(b, "idea", YOUNG_NOTES, "b on idea").has("result"));
        ok(sync(b)); // pushed before a's deletion travels
        String remoteIdea = run("git", "-C", remote.toString(), "rev-parse", "refs/heads/idea")
                .strip();
        ok(a.call("branch.delete", "{\"name\":\"idea\"}"));
        JsonNode sa = ok(sync(a));
        JsonNode ra = row(sa, "idea");
        assertEquals("deleted_here", ra.get("outcome").asText(), sa.toString());
        assertTrue(ra.get("remote_kept").asText().startsWith("it has commits this root never saw: "), ra.toString());
        assertTrue(ra.get("remote_kept").asText().contains(remoteIdea.substring(0, 10)), ra.toString());
        assertFalse(ra.has("remote_deleted"));
        assertEquals(
                remoteIdea,
                run("git", "-C", remote.toString(), "rev-parse", "refs/heads/idea")
                        .strip(),
                "kept");
        assertFalse(remoteHas("refs/memoryd/deleted/idea"), "no deletion recorded on the remote");
        assertFalse(hasBranch(a, "idea"), "not brought back on a either");

        JsonNode sb = ok(sync(b));
        assertTrue(sb.get("ok").asBoolean(), sb.toString());
        assertTrue(hasBranch(b, "idea"));
        assertTrue(b.git("show", "idea:" + YOUNG_NOTES).contains("b on idea"));
        assertVerifies(a);
        assertVerifies(b);
    }

    @Test
    void aDeletionReachingARootWithNewWorkOnTheBranch_isOverridden_andTheBranchPushedBack() throws Exception {
        ideaOnBothRoots();
        ok(a.call("branch.delete", "{\"name\":\"idea\"}"));
        assertTrue(writeOn(b, "idea", YOUNG_NOTES, "b on idea, unsynced").has("result"));
        assertTrue(row(ok(sync(a)), "idea").path("remote_deleted").asBoolean());
        JsonNode sb = ok(sync(b));
        assertTrue(sb.get("ok").asBoolean(), sb.toString());
        JsonNode rb = row(sb, "idea");
        assertEquals("delete_overridden", rb.get("outcome").asText(), sb.toString());
        assertTrue(rb.get("message").asText().contains("commits the deletion never saw"), rb.toString());
        assertEquals("ok", rb.get("pushed").asText(), rb.toString());
        assertTrue(hasBranch(b, "idea"));
        assertTrue(run("git", "-C", remote.toString(), "show", "idea:" + YOUNG_NOTES)
                .contains("b on idea, unsynced"));
        JsonNode sa = ok(sync(a));
        assertTrue(row(sa, "idea").has("remote_kept"), sa.toString());
        assertTrue(remoteHas("refs/heads/idea"), "a does not delete b's work");
        assertVerifies(a);
        assertVerifies(b);
    }

    @Test
    void aDeletionReachingARootThatServesTheBranch_isReported_andTheBranchKept() throws Exception {
        ideaOnBothRoots();
        b.close();
        b.git("checkout", "-q", "idea");
        b.configure(c -> c.withBranch("idea"));
        b.serveAsIs();
        ok(a.call("branch.delete", "{\"name\":\"idea\"}"));
        assertTrue(row(ok(sync(a)), "idea").path("remote_deleted").asBoolean());
        String head = b.git("rev-parse", "idea").strip();
        JsonNode sb = ok(sync(b));
        JsonNode rb = row(sb, "idea");
        assertEquals("kept_checked_out", rb.get("outcome").asText(), sb.toString());
        assertEquals("not_pushed", rb.get("pushed").asText());
        assertEquals(head, b.git("rev-parse", "idea").strip());
        assertFalse(remoteHas("refs/heads/idea"), "the deletion stands on the remote");
        assertVerifies(b);
    }

    @Test
    void unknownRemote_isNotFound_andChangesNothing() throws Exception {
        String head = a.git("rev-parse", "main").strip();
        JsonNode r = a.call("sync", "{\"remote\":\"nowhere\"}");
        assertEquals("not_found", r.get("error").get("data").get("reason").asText(), r.toString());
        assertTrue(r.get("error").get("message").asText().contains("git -C"), r.toString());
        assertEquals(head, a.git("rev-parse", "main").strip());
        JsonNode bad = a.call("sync", "{\"remote\":\"origin\",\"resolutions\":\"theirs\"}");
        assertEquals(
                "invalid_request", bad.get("error").get("data").get("reason").asText(), bad.toString());
    }

    /**
     * Resolutions of one branch that are not resolutions (a string where an array goes): the sync
     * fetched, merged and pushed the other branches and reported an error on that branch's row
     * alone; and a fetch from a remote that is no repository said "Invalid remote" without its URL.
     */
    @Test
    void malformedResolutionsOfOneBranch_refuseTheWholeSyncBeforeAnything_andAFailedFetchNamesItsUrl()
            throws Exception {
        assertTrue(appendItem(b, CRITIC_NOTES, "not yet synced").has("result"));
        String remoteHead = TwoRoots.run("git", "--git-dir", remote.toString(), "rev-parse", "main")
                .strip();
        String head = a.git("rev-parse", "main").strip();
        String fetched = a.git("for-each-ref", "refs/remotes/");
        JsonNode r = a.call("sync", "{\"remote\":\"origin\",\"resolutions\":{\"main\":\"oops\"}}");
        assertEquals("invalid_request", r.at("/error/data/reason").asText(), r.toString());
        assertTrue(r.at("/error/message").asText().startsWith("resolutions for branch 'main': "), r.toString());
        assertTrue(r.at("/error/message").asText().endsWith("; nothing was changed"), r.toString());
        assertEquals(head, a.git("rev-parse", "main").strip());
        assertEquals(fetched, a.git("for-each-ref", "refs/remotes/"), "nothing fetched");
        assertEquals(
                remoteHead,
                TwoRoots.run("git", "--git-dir", remote.toString(), "rev-parse", "main")
                        .strip());

        Path nowhere = tmp.resolve("not-a-repository");
        a.git("remote", "add", "broken", nowhere.toString());
        JsonNode f = a.call("sync", "{\"remote\":\"broken\"}");
        assertEquals("unavailable", f.at("/error/data/reason").asText(), f.toString());
        assertTrue(f.at("/error/message").asText().contains("'broken' (" + nowhere + ")"), f.toString());
    }

    @Test
    void aPlainGitClone_servedForTheFirstTime_writesAChainOfItsOwn_andSyncsBothWays() throws Exception {
        Path c = tmp.resolve("c/memory");
        run("git", "clone", "-q", remote.toString(), c.toString());
        Files.createDirectories(c.resolve(".git/memoryd")); // as `memoryd console` leaves it: not a serve
        try (TestRoot plain = TestRoot.existing(c, a.cfg.keyFile()).serveAsIs()) {
            String id = plain.git("config", "memoryd.replica").strip();
            assertTrue(id.matches("r[0-9a-z]{7}"), id);
            assertTrue(appendItem(plain, CRITIC_NOTES, "from c").has("result"));
            assertTrue(
                    plain.git("ls-tree", "-r", "--name-only", "main", "ledger/").contains("ledger/main@" + id + "/"),
                    "the clone's lines are in a chain of its own");
            assertTrue(appendItem(a, YOUNG_NOTES, "from a").has("result"));
            JsonNode sc = ok(sync(plain));
            assertTrue(sc.get("ok").asBoolean(), sc.toString());
            JsonNode sa = ok(sync(a));
            assertTrue(sa.get("ok").asBoolean(), "no fork of chain main: " + sa);
            assertTrue(a.file(CRITIC_NOTES).contains("from c"), a.file(CRITIC_NOTES));
            assertTrue(ok(sync(plain)).get("ok").asBoolean());
            assertTrue(plain.file(YOUNG_NOTES).contains("from a"), plain.file(YOUNG_NOTES));
            assertVerifies(a);
            assertVerifies(plain);
        }
        try (TestRoot again = TestRoot.existing(c, a.cfg.keyFile()).serveAsIs()) {
            assertTrue(appendItem(again, CRITIC_NOTES, "from c, later").has("result"));
            assertEquals(
                    1,
                    again.git("config", "--get-all", "memoryd.replica")
                            .strip()
                            .lines()
                            .count(),
                    "a second serve keeps the id it was given");
            assertVerifies(again);
        }
    }

    /**
     * A plain clone of a served root, synced back to it: the push moved the root's checked-out
     * main under its working tree, whose files still held the commit before; the root's daemon
     * took them for a human's edit that removed the clone's write, and the next sync took that
     * removal back to the clone. Git refuses such a push; so does memoryd now, and the root syncs
     * from the clone instead.
     */
    @Test
    void aCloneOfAServedRoot_doesNotPushIntoItsCheckedOutBranch_andTheRootSyncsFromTheCloneInstead() throws Exception {
        Path c = tmp.resolve("c/memory");
        run("git", "clone", "-q", a.dir.toString(), c.toString());
        String aHead = a.git("rev-parse", "main").strip();
        try (TestRoot clone = TestRoot.existing(c, a.cfg.keyFile()).serveAsIs()) {
            assertTrue(appendItem(clone, CRITIC_NOTES, "from the clone").has("result"));
            JsonNode sc = ok(clone.call("sync", "{\"remote\":\"origin\"}"));
            assertFalse(sc.get("ok").asBoolean(), sc.toString());
            JsonNode main = row(sc, "main");
            assertEquals("rejected_checked_out", main.get("pushed").asText(), main.toString());
            assertTrue(
                    main.get("push_message").asText().contains("is checked out in the working tree " + a.dir),
                    main.toString());
            assertEquals(aHead, a.git("rev-parse", "main").strip(), "the root's branch did not move");
            assertEquals("", a.git("status", "--porcelain"), "nor under its files");

            a.git("remote", "add", "laptop", c.toString());
            JsonNode sa = ok(a.call("sync", "{\"remote\":\"laptop\"}"));
            assertEquals("merged", row(sa, "main").get("outcome").asText(), sa.toString());
            assertEquals(
                    "rejected_checked_out",
                    row(sa, "main").get("pushed").asText(),
                    "the clone's main is checked out too");
            assertTrue(a.file(CRITIC_NOTES).contains("- from the clone"), a.file(CRITIC_NOTES));
            ok(clone.call("sync", "{\"remote\":\"origin\"}")); // the root's merge, fetched back
            assertEquals(a.file(CRITIC_NOTES), clone.file(CRITIC_NOTES));
            assertTrue(a.call("capture", "{}").has("result"));
            assertTrue(clone.call("capture", "{}").has("result"));
            assertTrue(a.file(CRITIC_NOTES).contains("- from the clone"), "kept on the root: " + a.file(CRITIC_NOTES));
            assertTrue(clone.file(CRITIC_NOTES).contains("- from the clone"), "kept on the clone");
            assertEquals("", a.git("status", "--porcelain"));
            assertVerifies(a);
            assertVerifies(clone);
        }
    }

    @Test
    void twoRootsWritingOneChain_areRefused_namingTheReplicaId() throws Exception {
        // A clone whose reflog was expired cannot be told from the root it came from: it writes chain
        // "main", as that root does.
        Path c = tmp.resolve("c/memory");
        run("git", "clone", "-q", remote.toString(), c.toString());
        run("git", "-C", c.toString(), "reflog", "expire", "--expire=now", "--all");
        try (TestRoot plain = TestRoot.existing(c, a.cfg.keyFile()).serveAsIs()) {
            assertTrue(appendItem(plain, CRITIC_NOTES, "from c").has("result"));
            plain.git("push", "-q", "origin", "main");
        }
        assertTrue(appendItem(a, CRITIC_NOTES, "from a").has("result"));
        String head = a.git("rev-parse", "main").strip();
        JsonNode s = ok(sync(a));
        assertFalse(s.get("ok").asBoolean());
        JsonNode main = row(s, "main");
        assertEquals("error", main.get("outcome").asText(), s.toString());
        assertTrue(main.get("error").asText().contains("replica id"), main.toString());
        assertEquals(head, a.git("rev-parse", "main").strip(), "nothing merged");
        assertFalse(a.file(CRITIC_NOTES).contains("from c"));
    }

    @Test
    void aReplicaForkLineWithoutItsCommit_isCommittedByRecovery() throws Exception {
        // What a kill between the fork line's fsync and its commit leaves on a clone's first start.
        TestRoot c = TestRoot.cloneOf(tmp.resolve("c"), remote.toString(), a.cfg.keyFile(), "c");
        String cloned = c.git("rev-parse", "main").strip();
        dev.memoryd.ledger.KeyRing keys =
                dev.memoryd.ledger.KeyRing.loadOrCreate(c.cfg.keyFile(), new java.security.SecureRandom());
        dev.memoryd.ledger.IdGenerator ids =
                new dev.memoryd.ledger.IdGenerator(java.time.Clock.systemUTC(), new java.util.Random(3));
        try (dev.memoryd.ledger.Ledger l = dev.memoryd.ledger.Ledger.open(
                c.cfg.ledgerDir(), keys, new dev.memoryd.ledger.LedgerOptions(c.cfg.segmentLines(), ids))) {
            com.fasterxml.jackson.databind.node.ObjectNode payload =
                    com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
            String id = ids.next().value();
            java.util.regex.Matcher h = java.util.regex.Pattern.compile("Memoryd-Ledger-Head: (\\d+):(\\w+)")
                    .matcher(c.git("log", "-1", "--format=%B", "main"));
            assertTrue(h.find());
            payload.putObject("link")
                    .put("branch", "main")
                    .put("seq", Long.parseLong(h.group(1)))
                    .put("line_hash", h.group(2));
            payload.putObject("fork")
                    .put("from", "main")
                    .put("from_commit", cloned)
                    .put("replica", "c");
            payload.putObject("decl").put("id", id).put("index", 0).put("count", 1);
            l.chain(dev.memoryd.ledger.BranchName.of("main@c"))
                    .append(List.of(new dev.memoryd.ledger.EventDraft(
                            id,
                            java.time.Instant.now()
                                    .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                                    .toString(),
                            "main",
                            "memoryd",
                            null,
                            null,
                            null,
                            null,
                            "branch_fork",
                            null,
                            null,
                            null,
                            payload,
                            "fork",
                            List.of(),
                            null,
                            null)));
        }
        try (TestRoot served = c.serveAsIs()) {
            assertEquals(cloned, served.git("rev-parse", "main^").strip(), "one commit on the cloned head");
            assertTrue(served.git("log", "-1", "--format=%B", "main").contains("Memoryd-Ledger-Chain: main@c"));
            assertTrue(served.git("show", "main:ledger/main@c/0000/00000000.ndjson")
                    .contains("\"op\":\"branch_fork\""));
            assertEquals(
                    1,
                    served.git("show", "main:ledger/main@c/0000/00000000.ndjson")
                            .lines()
                            .count(),
                    "not forked twice");
            assertTrue(appendItem(served, CRITIC_NOTES, "from c").has("result"));
            assertVerifies(served);
        }
    }

    @Test
    void aSyncMergeCutOffBeforeItsFilesAndRef_isRedoneByRecovery_intoTheSameTree() throws Exception {
        assertTrue(appendItem(a, CRITIC_NOTES, "from a").has("result"));
        ok(sync(a));
        assertTrue(appendItem(b, YOUNG_NOTES, "from b").has("result"));
        assertEquals("merged", row(ok(sync(b)), "main").get("outcome").asText());
        String merge = b.git("rev-parse", "main").strip();
        String before = b.git("rev-parse", "main^1").strip();
        String merged = b.file(CRITIC_NOTES);
        assertTrue(
                b.git("ls-tree", "-r", "--name-only", merge).contains("ledger/main/"), "a's chain came with the merge");
        b.daemon.close();
        b.daemon = null;
        // What a kill after the merge line's fsync leaves: a's chain files and the line on disk, the
        // memory file and the ref as before.
        Files.writeString(b.dir.resolve(CRITIC_NOTES), b.git("show", before + ":" + CRITIC_NOTES));
        Files.writeString(b.dir.resolve(".git/refs/heads/main"), before + "\n");

        b.serveAsIs();
        assertEquals(merged, b.file(CRITIC_NOTES), "the merge's text is back on disk");
        assertEquals(
                b.git("rev-parse", merge + "^2").strip(),
                b.git("rev-parse", "main^2").strip(),
                "a merge of the same commit");
        assertEquals(
                b.git("rev-parse", merge + "^{tree}").strip(),
                b.git("rev-parse", "main^{tree}").strip(),
                "the redone merge commits what the original did, a's chain files included");
        Thread.sleep(300); // a kept old text would have been captured as a human's edit by now
        assertEquals(
                b.git("rev-parse", merge + "^{tree}").strip(),
                b.git("rev-parse", "main^{tree}").strip());
        assertEquals(
                "",
                b.git("status", "--porcelain", "--untracked-files=all", "ledger", "users")
                        .strip());
        assertVerifies(b);
        // The original merge was pushed here (a real kill before the ref move comes before the push),
        // so one merge of the two same-tree commits is still to come.
        assertTrue(settle() <= 2);
        assertEquals(memoryFiles(a), memoryFiles(b));
    }

    private static List<String> scopeNames(TestRoot r, String scope) throws Exception {
        List<String> out = new java.util.ArrayList<>();
        ok(r.call("scope", "{\"scopes\":[\"" + scope + "\"]}"))
                .get("chunks")
                .forEach(c -> out.add(c.path("name").asText()));
        return out;
    }

    @Test
    void chunksDeclaredOnOneReplica_areInTheOtherReplicasGraph_assoonAsItsSyncMerges() throws Exception {
        ok(a.call("declare", "{\"chunks\":[{\"name\":\"topic\"}]}"));
        ok(a.call(
                "declare",
                "{\"chunks\":[{\"name\":\"note\",\"body\":{\"text\":\"from a\"},"
                        + "\"placements\":[{\"scope\":\"topic\"}]}]}"));
        ok(sync(a));
        assertTrue(appendItem(b, YOUNG_NOTES, "from b").has("result")); // so b's sync is a real merge
        assertEquals("merged", row(ok(sync(b)), "main").get("outcome").asText());
        assertEquals(List.of("note"), scopeNames(b, "topic"), "no restart needed");
        JsonNode again = b.call("declare", "{\"chunks\":[{\"name\":\"note\",\"placements\":[{\"scope\":\"topic\"}]}]}");
        assertTrue(again.has("error"), "b's writer knows the name is taken in topic: " + again);

        ok(a.call("declare", "{\"rationale\":\"outdated\",\"removals\":[{\"chunk\":\"topic/note\"}]}"));
        ok(sync(a));
        assertTrue(appendItem(b, YOUNG_NOTES, "from b again").has("result"));
        assertEquals("merged", row(ok(sync(b)), "main").get("outcome").asText());
        assertEquals(List.of(), scopeNames(b, "topic"), "the removal merged too");
        b.close();
        b.serveAsIs();
        assertEquals(List.of(), scopeNames(b, "topic"), "a restart reads the same graph from the files");
    }

    /** git status shows no change under {@code paths} once the writer has refreshed the index (it does when writes pause). */
    /**
     * {@code r}'s main holds nothing merged since {@code head}: at most a commit of other replicas'
     * ledger lines, which a sync brings in and commits rather than leaving them in the working tree
     * for a human's {@code git commit -a}; nothing of its own chain ({@code ownChain}), no merge
     * commit, and {@code git status} clean.
     */
    private static void assertNothingMergedSince(TestRoot r, String head, String ownChain) throws Exception {
        for (String changed :
                r.git("diff", "--name-only", head, "main").strip().lines().toList()) {
            assertTrue(changed.startsWith("ledger/") && !changed.startsWith(ownChain), changed);
        }
        assertEquals(1, r.git("log", "-1", "--format=%P", "main").strip().split(" ").length, "no merge commit");
        assertStatusClean(r);
    }

    private static void assertStatusClean(TestRoot r, String... paths) throws Exception {
        List<String> args = new ArrayList<>(List.of("status", "--porcelain", "--untracked-files=all", "--"));
        args.addAll(List.of(paths));
        String st = "";
        for (int i = 0; i < 100 && !(st = r.git(args.toArray(String[]::new)).strip()).isEmpty(); i++) {
            Thread.sleep(20);
        }
        assertEquals("", st, "git status shows no change");
    }

    private static String created(JsonNode declareReply) {
        return ok(declareReply).get("created").get(0).get("id").asText();
    }

    @Test
    void aSyncWhoseMergeWouldTakeOneNameTwice_leavesThatBranchUnmergedAndUnpushed_whileOtherBranchesSync()
            throws Exception {
        ok(a.call("declare", "{\"chunks\":[{\"name\":\"topic\"}]}"));
        ok(sync(a));
        assertEquals("merged", row(ok(sync(b)), "main").get("outcome").asText());
        String theirs = created(a.call(
                "declare",
                "{\"chunks\":[{\"name\":\"x\",\"body\":{\"by\":\"a\"}," + "\"placements\":[{\"scope\":\"topic\"}]}]}"));
        ok(sync(a));
        String ours = created(b.call(
                "declare",
                "{\"chunks\":[{\"name\":\"x\",\"body\":{\"by\":\"b\"}," + "\"placements\":[{\"scope\":\"topic\"}]}]}"));
        ok(b.call("branch.create", "{\"name\":\"side\"}"));
        String head = b.git("rev-parse", "main").strip();
        String remoteHead =
                run("git", "--git-dir", remote.toString(), "rev-parse", "main").strip();

        JsonNode s = ok(sync(b));
        assertFalse(s.get("ok").asBoolean(), s.toString());
        JsonNode main = row(s, "main");
        assertEquals("spec_violation", main.get("outcome").asText(), s.toString());
        assertEquals(
                List.of("branch", "outcome", "message", "violation", "pushed", "push_message"), TestRoot.keys(main));
        assertEquals(List.of("rule", "chunk", "chunk_name", "scope"), TestRoot.keys(main.get("violation")));
        assertEquals("name", main.get("violation").get("rule").asText());
        assertEquals(theirs, main.get("violation").get("chunk").asText(), "the chunk the merge brings");
        assertEquals("x", main.get("violation").get("chunk_name").asText());
        assertTrue(main.get("message").asText().contains(ours), main.toString());
        assertEquals("not_pushed", main.get("pushed").asText(), main.toString());
        assertEquals("ok", row(s, "side").get("pushed").asText(), "the other branch still syncs: " + s);
        assertNothingMergedSince(b, head, "ledger/main@b/");
        assertEquals(
                remoteHead,
                run("git", "--git-dir", remote.toString(), "rev-parse", "main").strip(),
                "nothing pushed");
        assertEquals(List.of("x"), scopeNames(b, "topic"));
        assertVerifies(a);
        assertVerifies(b);

        // Renamed on one side, the next sync merges and pushes.
        ok(b.call("declare", "{\"chunks\":[{\"id\":\"" + ours + "\",\"name\":\"x-b\"}]}"));
        JsonNode again = ok(sync(b));
        assertTrue(again.get("ok").asBoolean(), again.toString());
        assertEquals("merged", row(again, "main").get("outcome").asText());
        assertEquals("ok", row(again, "main").get("pushed").asText());
        assertEquals(
                List.of("x", "x-b"), scopeNames(b, "topic").stream().sorted().toList());
        assertVerifies(b);
        assertTrue(settle() <= 3);
        assertEquals(
                List.of("x", "x-b"), scopeNames(a, "topic").stream().sorted().toList());
        assertVerifies(a);
    }

    @Test
    void threeReplicas_syncingRoundRobin_settleOnOneTree_withEveryChainLinked() throws Exception {
        try (TestRoot c = TestRoot.cloneOf(tmp.resolve("c"), remote.toString(), a.cfg.keyFile(), "c")
                .serveAsIs()) {
            List<TestRoot> roots = List.of(a, b, c);
            for (int i = 0; i < 3; i++) {
                assertTrue(appendItem(a, CRITIC_NOTES, "a" + i).has("result"));
                assertTrue(appendItem(b, YOUNG_NOTES, "b" + i).has("result"));
                assertTrue(replaceRole(c, "Role by c, revision " + i + ".").has("result"));
                for (TestRoot r : roots) {
                    assertFalse(sync(r).has("error"));
                }
            }
            int rounds = 0;
            boolean still = true;
            while (still) {
                assertTrue(++rounds <= 6, "three replicas never settled");
                still = false;
                for (TestRoot r : roots) {
                    String before = r.git("rev-parse", "main").strip();
                    JsonNode s = ok(sync(r));
                    assertTrue(s.get("ok").asBoolean(), s.toString());
                    still |= !before.equals(r.git("rev-parse", "main").strip());
                }
            }
            String tree = a.git("rev-parse", "main^{tree}").strip();
            for (TestRoot r : roots) {
                assertEquals(tree, r.git("rev-parse", "main^{tree}").strip());
                assertVerifies(r);
                assertTrue(r.file(CRITIC).contains("Role by c, revision 2."));
                assertTrue(r.file(YOUNG_NOTES).contains("b2\n")
                        && r.file(CRITIC_NOTES).contains("a2\n"));
            }
            for (String chain : List.of("main", "main@b", "main@c")) {
                assertTrue(Files.exists(a.dir.resolve("ledger/" + chain + "/0000/00000000.ndjson")), chain);
            }
        }
    }

    @Test
    void sshRemotes_goThroughJGitsSshClient_andAnUnreachableOneIsUnavailable_changingNothing() throws Exception {
        assertTrue(
                org.eclipse.jgit.transport.SshSessionFactory.getInstance()
                        instanceof org.eclipse.jgit.transport.sshd.SshdSessionFactory,
                "an SSH transport is on the class path");
        a.git("remote", "add", "far", "ssh://git@127.0.0.1:1/memory.git"); // nothing listens on port 1
        String head = a.git("rev-parse", "main").strip();
        JsonNode r = a.call("sync", "{\"remote\":\"far\"}");
        assertEquals("unavailable", r.get("error").get("data").get("reason").asText(), r.toString());
        assertTrue(r.get("error").get("message").asText().contains("Connection refused"), r.toString());
        assertEquals(head, a.git("rev-parse", "main").strip());
    }

    @Test
    void aRemoteWhoseCopyOfAChainWasRewritten_isRefused_andTheLinesHereStay() throws Exception {
        assertTrue(appendItem(a, CRITIC_NOTES, "genuine").has("result"));
        ok(sync(a));
        ok(sync(b));
        Path bChainCopy = b.dir.resolve("ledger/main/0000/00000000.ndjson");
        String before = Files.readString(bChainCopy);
        // Someone rewrites a's chain in the remote: a line's text changed, one line added, force-pushed.
        Path evil = tmp.resolve("evil");
        run("git", "clone", "-q", remote.toString(), evil.toString());
        Path f = evil.resolve("ledger/main/0000/00000000.ndjson");
        String forged = Files.readString(f).replace("genuine", "forged");
        Files.writeString(f, forged + forged.lines().reduce((x, y) -> y).orElseThrow() + "\n");
        run(
                "git",
                "-C",
                evil.toString(),
                "-c",
                "user.name=x",
                "-c",
                "user.email=x@x",
                "commit",
                "-q",
                "-am",
                "rewrite");
        run("git", "-C", evil.toString(), "push", "-q", "-f", "origin", "main");

        String head = b.git("rev-parse", "main").strip();
        JsonNode s = ok(sync(b));
        assertFalse(s.get("ok").asBoolean(), s.toString());
        JsonNode main = row(s, "main");
        assertEquals("error", main.get("outcome").asText(), s.toString());
        assertTrue(main.get("error").asText().contains("beyond a common prefix"), main.toString());
        assertEquals(head, b.git("rev-parse", "main").strip(), "nothing merged");
        assertEquals(before, Files.readString(bChainCopy), "the genuine lines stay on disk");
        assertVerifies(b);
    }

    @Test
    void aCloneTakenOverCommitsNoMemorydCapturedYet_capturesThemItself() throws Exception {
        // A human commits on a with plain git and pushes with plain git; a's daemon has not captured it.
        Path f = a.dir.resolve(CRITIC_NOTES);
        String text = Files.readString(f);
        int at = text.indexOf("## Focus");
        Files.writeString(f, text.substring(0, at) + "- written by hand, committed with git\n\n" + text.substring(at));
        a.git("-c", "user.name=Sam", "-c", "user.email=sam@example.com", "commit", "-q", "-am", "by hand");
        a.git("push", "-q", "origin", "main");
        try (TestRoot c = TestRoot.cloneOf(tmp.resolve("c"), remote.toString(), a.cfg.keyFile(), "c")
                .serveAsIs()) {
            c.importExample(); // what the watcher's start-up rescan does
            String chain = c.git("show", "main:ledger/main@c/0000/00000000.ndjson");
            assertTrue(chain.contains("\"recorded_commit\""), chain);
            assertTrue(chain.contains("human_edit") && chain.contains("written by hand"), chain);
            assertVerifies(c);
        }
    }

    @Test
    void everySyncResult_keepsItsWireKeysInOrder() throws Exception {
        Map<String, List<String>> rows = new TreeMap<>();
        assertTrue(replaceRole(a, "A says the critic guards.").has("result"));
        assertTrue(replaceRole(b, "B says the critic pushes.").has("result"));
        ok(a.call("branch.create", "{\"name\":\"idea\"}"));
        JsonNode first = ok(sync(a));
        assertEquals(List.of("remote", "fetched_branches", "chain_files", "branches", "ok"), TestRoot.keys(first));
        collect(rows, "a1", first);
        collect(rows, "b1", ok(sync(b)));
        collect(
                rows,
                "b2",
                ok(b.call(
                        "sync",
                        "{\"remote\":\"origin\",\"resolutions\":[{\"path\":\"" + CRITIC
                                + "\",\"section\":\"role\",\"take\":\"theirs\"}]}")));
        collect(rows, "a2", ok(sync(a)));
        collect(rows, "b3", ok(sync(b)));
        ok(b.call("branch.delete", "{\"name\":\"idea\"}"));
        collect(rows, "b4", ok(sync(b)));
        collect(rows, "a3", ok(sync(a)));
        // Which outcome a round gives can depend on timing (chains or merged); each outcome's keys cannot.
        Map<String, List<String>> expected = Map.of(
                "local_only", List.of("branch", "outcome", "pushed"),
                "up_to_date", List.of("branch", "outcome", "pushed"),
                "chains", List.of("branch", "outcome", "commit", "pushed"),
                "merged", List.of("branch", "outcome", "commit", "event_id", "pushed"),
                "conflict", List.of("branch", "conflicts", "outcome", "message", "pushed", "push_message"),
                "created", List.of("branch", "outcome", "commit", "event_id", "pushed"),
                "deleted_here", List.of("branch", "outcome", "message", "remote_deleted"),
                "deleted_by_remote",
                        List.of("branch", "retired_there", "outcome", "message", "commit", "event_id", "retired_ref"));
        java.util.Set<String> seen = new java.util.TreeSet<>();
        rows.forEach((round, keys) -> {
            String outcome = round.substring(round.lastIndexOf(' ') + 1);
            if (round.endsWith(" conflict") && round.split(" ").length == 2) {
                assertEquals(List.of("path", "section", "base", "ours", "theirs"), keys, round);
                return;
            }
            assertEquals(expected.get(outcome), keys, round);
            seen.add(outcome);
        });
        assertEquals(new java.util.TreeSet<>(expected.keySet()), seen, "every outcome of the round was seen: " + rows);
        assertTrue(
                PayloadLines.assertRoundTrip(a.dir) > 0,
                "served and replica forks, read back typed, are the same bytes");
        assertTrue(PayloadLines.assertRoundTrip(b.dir) > 0);
    }

    private static void collect(Map<String, List<String>> rows, String round, JsonNode result) {
        for (JsonNode r : result.get("branches")) {
            rows.put(
                    round + " " + r.get("branch").asText() + " "
                            + r.path("outcome").asText(),
                    TestRoot.keys(r));
            if (r.has("conflicts")) {
                rows.put(round + " conflict", TestRoot.keys(r.get("conflicts").get(0)));
            }
        }
    }
}
