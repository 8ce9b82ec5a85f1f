package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.jcs.Jcs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each tampering produces its reason, at the right file and line. Segments hold 4 lines: 4 + 4 + 2. */
class VerifierTest {
    private static final BranchName MAIN = BranchName.of("main");
    private static final String SEG0 = "ledger/main/0000/00000000.ndjson";
    private static final String SEG1 = "ledger/main/0000/00000001.ndjson";
    private static final String SEG2 = "ledger/main/0000/00000002.ndjson";

    @TempDir
    Path tmp;

    private Path dir;
    private List<Event> written;

    @BeforeEach
    void tenLines() {
        dir = tmp.resolve("ledger");
        try (Ledger l = Fixtures.open(dir, 4)) {
            written = l.chain(MAIN).append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 10));
        }
    }

    private List<String> lines(String rel) throws Exception {
        return new ArrayList<>(Files.readAllLines(tmp.resolve(rel), StandardCharsets.UTF_8));
    }

    private void write(String rel, List<String> lines) throws Exception {
        Files.writeString(tmp.resolve(rel), String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    }

    private VerifyResult verify() {
        return Verifier.verify(dir, Fixtures.keys(), Map.of());
    }

    private static void assertBad(VerifyResult r, String reason, String file, long line, Long seq) {
        assertFalse(r.ok(), "expected " + reason);
        assertEquals(reason, r.reason(), r.message());
        assertEquals(file, r.firstBadFile(), r.message());
        assertEquals(line, r.firstBadLine(), r.message());
        assertEquals(seq, r.seq(), r.message());
        assertTrue(r.message().endsWith("."), r.message());
    }

    @Test
    void anUntouchedLedgerVerifiesWithCounts() {
        VerifyResult r = verify();
        assertTrue(r.ok(), r.message());
        assertEquals(10, r.lines());
        assertEquals(Map.of(MAIN, 10L), r.linesPerChain());
        assertTrue(Verifier.verify(
                        dir,
                        Fixtures.keys(),
                        Map.of(MAIN, new Head(10, written.get(9).integrity().lineHash())))
                .ok());
    }

    @Test
    void aChangedByteIsReportedAsChanged() throws Exception {
        List<String> l = lines(SEG0);
        l.set(1, l.get(1).replace("because test 1", "because test X"));
        write(SEG0, l);
        assertBad(verify(), VerifyResult.CHANGED, SEG0, 2, 2L);
    }

    @Test
    void aReformattedButUnchangedLineStillVerifies() throws Exception {
        List<String> l = lines(SEG0);
        l.set(
                1,
                LineCodec.JSON
                        .writerWithDefaultPrettyPrinter()
                        .writeValueAsString(LineCodec.JSON.readTree(l.get(1)))
                        .replace("\n", " "));
        write(SEG0, l);
        assertTrue(verify().ok(), verify().message());
    }

    @Test
    void aRemovedLineIsReportedAsRemoved() throws Exception {
        List<String> l = lines(SEG1);
        l.remove(1); // seq 6
        write(SEG1, l);
        assertBad(verify(), VerifyResult.REMOVED, SEG1, 2, 7L);
    }

    @Test
    void aRemovedFirstLineIsReportedAsRemoved() throws Exception {
        List<String> l = lines(SEG0);
        l.remove(0);
        write(SEG0, l);
        assertBad(verify(), VerifyResult.REMOVED, SEG0, 1, 2L);
    }

    @Test
    void swappedLinesAreReportedAsReordered() throws Exception {
        List<String> l = lines(SEG0);
        String second = l.get(1);
        l.set(1, l.get(2));
        l.set(2, second);
        write(SEG0, l);
        assertBad(verify(), VerifyResult.REORDERED, SEG0, 2, 3L);
    }

    @Test
    void aLineMovedFarBackIsReportedAsReordered() throws Exception {
        List<String> l0 = lines(SEG0);
        String moved = l0.remove(1); // seq 2 moved to the end of segment 1
        write(SEG0, l0);
        List<String> l1 = lines(SEG1);
        l1.add(moved);
        write(SEG1, l1);
        assertBad(verify(), VerifyResult.REORDERED, SEG0, 2, 3L);
    }

    @Test
    void aDuplicatedLineIsReportedAsDuplicated() throws Exception {
        List<String> l = lines(SEG0);
        l.add(2, l.get(1));
        write(SEG0, l);
        assertBad(verify(), VerifyResult.DUPLICATED, SEG0, 3, 2L);
    }

    @Test
    void aLineCutMidWayIsReportedAsTruncated() throws Exception {
        Path f = tmp.resolve(SEG2);
        byte[] b = Files.readAllBytes(f);
        Files.write(f, java.util.Arrays.copyOf(b, b.length - 40));
        assertBad(verify(), VerifyResult.TRUNCATED, SEG2, 2, null);
    }

    @Test
    void aDroppedLastLineIsReportedAsTruncatedAgainstTheExpectedHead() throws Exception {
        List<String> l = lines(SEG2);
        l.remove(1);
        write(SEG2, l);
        assertTrue(verify().ok(), "without a head from Git, a clean cut is invisible");
        Head head = new Head(10, written.get(9).integrity().lineHash());
        assertBad(Verifier.verify(dir, Fixtures.keys(), Map.of(MAIN, head)), VerifyResult.TRUNCATED, SEG2, 2, 10L);
    }

    @Test
    void aMissingChainIsReportedAsTruncatedAgainstTheExpectedHead() {
        BranchName gone = BranchName.of("gone");
        VerifyResult r = Verifier.verify(dir, Fixtures.keys(), Map.of(gone, new Head(3, "a".repeat(64))));
        assertBad(r, VerifyResult.TRUNCATED, "ledger/gone/0000/00000000.ndjson", 1, 1L);
    }

    @Test
    void aRewrittenHeadIsReportedAsChanged() {
        VerifyResult r = Verifier.verify(dir, Fixtures.keys(), Map.of(MAIN, new Head(9, "a".repeat(64))));
        assertBad(r, VerifyResult.CHANGED, SEG2, 1, 9L);
    }

    @Test
    void aLineFromAnotherLedgerWithTheSameKeyIsReportedAsSpliced() throws Exception {
        Path other = tmp.resolve("other/ledger");
        try (Ledger l = Ledger.open(other, Fixtures.keys(), Fixtures.options(4, 12345))) {
            l.chain(MAIN).append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 4));
        }
        String foreign =
                Files.readAllLines(other.resolve("main/0000/00000000.ndjson")).get(2);
        List<String> l = lines(SEG0);
        l.set(2, foreign);
        write(SEG0, l);
        VerifyResult r = verify();
        assertBad(r, VerifyResult.SPLICED, SEG0, 3, 3L);
        assertTrue(r.message().contains("HMAC is valid"), r.message());
    }

    @Test
    void aDifferentKeyIsReportedAsWrongKey() {
        assertBad(Verifier.verify(dir, Fixtures.otherKeys(), Map.of()), VerifyResult.WRONG_KEY, SEG0, 1, 1L);
    }

    @Test
    void aResignedLineWithABadPrevIsReportedAsBrokenPrev() throws Exception {
        // Only a key holder can do this (e.g. a buggy writer): valid HMAC, wrong link.
        List<String> l = lines(SEG1);
        ObjectNode ev = (ObjectNode) LineCodec.JSON.readTree(l.get(0));
        ((ObjectNode) ev.get("integrity")).put("prev", "f".repeat(64));
        Event e = Event.fromJson(ev);
        String hash = LineCodec.lineHash(Fixtures.keys().lineMac(1), e);
        ((ObjectNode) ev.get("integrity")).put("line_hash", hash);
        l.set(0, Jcs.canonicalize(ev));
        write(SEG1, l);
        assertBad(verify(), VerifyResult.BROKEN_PREV, SEG1, 1, 5L);
    }

    @Test
    void unparseableLineIsReportedAsMalformed() throws Exception {
        List<String> l = lines(SEG1);
        l.set(2, "{\"seq\": 7, oops");
        write(SEG1, l);
        assertBad(verify(), VerifyResult.MALFORMED, SEG1, 3, null);
    }

    @Test
    void aLineMissingAFieldIsReportedAsMalformed() throws Exception {
        List<String> l = lines(SEG1);
        ObjectNode ev = (ObjectNode) LineCodec.JSON.readTree(l.get(2));
        ev.remove("op");
        l.set(2, Jcs.canonicalize(ev));
        write(SEG1, l);
        VerifyResult r = verify();
        assertBad(r, VerifyResult.MALFORMED, SEG1, 3, null);
        assertTrue(r.message().contains("\"op\""), r.message());
    }

    @Test
    void aKeyVersionMissingFromTheKeyFileIsReportedAsUnknownKeyVersion() {
        Path d2 = tmp.resolve("v2/ledger");
        KeyRing both = KeyRing.of(Map.of(1, Fixtures.master(1), 2, Fixtures.master(5)), 2);
        try (Ledger l = Ledger.open(d2, both, Fixtures.options(4, 1))) {
            l.chain(MAIN).append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 2));
        }
        assertTrue(Verifier.verify(d2, both, Map.of()).ok());
        VerifyResult r = Verifier.verify(d2, Fixtures.keys(), Map.of());
        assertBad(r, VerifyResult.UNKNOWN_KEY_VERSION, "v2/ledger/main/0000/00000000.ndjson".substring(3), 1, 1L);
    }

    @Test
    void linesSignedUnderAnOlderVersionStillVerifyAfterRotation() {
        KeyRing v1 = KeyRing.of(Map.of(1, Fixtures.master(1)), 1);
        KeyRing v2 = KeyRing.of(Map.of(1, Fixtures.master(1), 2, Fixtures.master(5)), 2);
        try (Ledger l = Ledger.open(dir, v2, Fixtures.options(4, 1))) {
            List<Event> more = l.chain(MAIN).append(Fixtures.drafts(Fixtures.ids(9), "main", 10, 3));
            assertEquals(2, more.get(0).integrity().saltVersion());
        }
        assertTrue(Verifier.verify(dir, v2, Map.of()).ok());
        assertEquals(
                VerifyResult.UNKNOWN_KEY_VERSION,
                Verifier.verify(dir, v1, Map.of()).reason());
    }

    @Test
    void findLocatesAnEventById() {
        Event e = written.get(6);
        assertEquals(Optional.of(e), Verifier.find(dir, EventId.of(e.eventId())));
        assertEquals(Optional.empty(), Verifier.find(dir, EventId.of("01JGZ5P0000000000000000000")));
    }

    private static EventDraft fork(IdGenerator ids, String branch, String to, long seq, String hash) {
        ObjectNode payload = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        payload.putObject("link").put("branch", to).put("seq", seq).put("line_hash", hash);
        return new EventDraft(
                ids.next().value(),
                "2025-01-02T03:04:05Z",
                branch,
                "agent",
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
                null);
    }

    @Test
    void aForkLinkedToAnExistingLineOfItsParentVerifies() {
        try (Ledger l = Fixtures.open(dir, 4)) {
            l.chain(BranchName.of("feature"))
                    .append(List.of(fork(
                            Fixtures.ids(5),
                            "feature",
                            "main",
                            7,
                            written.get(6).integrity().lineHash())));
        }
        VerifyResult r = verify();
        assertTrue(r.ok(), r.message());
        assertEquals(11, r.lines());
    }

    @Test
    void aForkLinkedToALineThatIsNotThereIsReportedAsBrokenLink() {
        try (Ledger l = Fixtures.open(dir, 4)) {
            l.chain(BranchName.of("feature"))
                    .append(List.of(fork(
                            Fixtures.ids(5),
                            "feature",
                            "main",
                            7,
                            written.get(5).integrity().lineHash())));
            l.chain(BranchName.of("other"))
                    .append(List.of(fork(
                            Fixtures.ids(6),
                            "other",
                            "main",
                            99,
                            written.get(5).integrity().lineHash())));
        }
        assertBad(verify(), VerifyResult.BROKEN_LINK, "ledger/feature/0000/00000000.ndjson", 1, 1L);
    }

    @Test
    void aReplicasChain_recordsTheBranchInItsEvents_andLinksToTheChainItWasClonedFrom() {
        BranchName replica = MAIN.onReplica("laptop");
        assertEquals("main@laptop", replica.value());
        assertEquals(MAIN, replica.gitBranch());
        assertEquals(Optional.of("laptop"), replica.replica());
        try (Ledger l = Fixtures.open(dir, 4)) {
            List<Event> ev = l.chain(replica)
                    .append(List.of(fork(
                            Fixtures.ids(5),
                            "main",
                            "main",
                            7,
                            written.get(6).integrity().lineHash())));
            assertEquals("main", ev.get(0).branch(), "events keep the branch; the chain is the replica's");
            l.chain(replica).append(Fixtures.drafts(Fixtures.ids(6), "main", 0, 5));
            assertThrows(
                    IllegalArgumentException.class,
                    () -> l.chain(replica).append(Fixtures.drafts(Fixtures.ids(7), "other", 0, 1)));
        }
        assertTrue(java.nio.file.Files.exists(dir.resolve("main@laptop/0000/00000000.ndjson")));
        VerifyResult r = verify();
        assertTrue(r.ok(), r.message());
        assertEquals(16, r.lines());
    }

    @Test
    void replicaIds_areValidated_andAQualifiedNameIsNotQualifiedTwice() {
        assertThrows(IllegalArgumentException.class, () -> MAIN.onReplica("Laptop"));
        assertThrows(IllegalArgumentException.class, () -> MAIN.onReplica("-x"));
        assertThrows(IllegalArgumentException.class, () -> MAIN.onReplica("a".repeat(33)));
        assertThrows(IllegalArgumentException.class, () -> MAIN.onReplica("b").onReplica("c"));
        assertEquals(MAIN, MAIN.onReplica(null));
        assertEquals(Optional.empty(), BranchName.of("feature/x").replica());
        assertEquals(BranchName.of("feature/x"), BranchName.of("feature/x@r1").gitBranch());
    }

    // A chain the ledger directory lacks is read from the commit the linking line names.

    private static final String C1 = "1".repeat(40);
    private static final String C2 = "2".repeat(40);

    private static EventDraft linking(
            IdGenerator ids, String branch, String op, String to, long seq, String hash, String commit) {
        ObjectNode payload = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        payload.putObject("link").put("branch", to).put("seq", seq).put("line_hash", hash);
        payload.putObject(op.equals("branch_merge") ? "merge" : "fork")
                .put("from", to)
                .put("from_commit", commit);
        return new EventDraft(
                ids.next().value(),
                "2025-01-02T03:04:05Z",
                branch,
                "agent",
                null,
                null,
                null,
                null,
                op,
                null,
                null,
                null,
                payload,
                op,
                List.of(),
                null,
                null);
    }

    /** Commits' trees as ledger directories: commit id → the {@code ledger/} its tree holds. */
    private static CommittedChains trees(Map<String, Path> ledgers) {
        return (commit, chain) -> {
            java.util.SortedMap<Long, byte[]> out = new java.util.TreeMap<>();
            Path l = ledgers.get(commit);
            if (l != null) {
                Layout.discover(l, new ArrayList<>())
                        .getOrDefault(chain, new java.util.TreeMap<>())
                        .forEach((n, f) -> out.put(n, Verifier.read(f)));
            }
            return out;
        };
    }

    /** Commit C1's ledger: chain exp, forked from main seq 7, then 3 lines (4 in all). */
    private Path expInCommit() {
        Path c1 = tmp.resolve("c1/ledger");
        try (Ledger l = Fixtures.open(c1, 4)) {
            IdGenerator ids = Fixtures.ids(21);
            Chain exp = l.chain(BranchName.of("exp"));
            exp.append(List.of(linking(
                    ids,
                    "exp",
                    "branch_fork",
                    "main",
                    7,
                    written.get(6).integrity().lineHash(),
                    "f".repeat(40))));
            exp.append(Fixtures.drafts(ids, "exp", 0, 3));
        }
        return c1;
    }

    private static String hashAt(Path ledger, String chain, long seq) {
        java.util.Iterator<Event> it = Ledger.readOnly(ledger, BranchName.of(chain));
        for (long i = 1; i < seq; i++) {
            it.next();
        }
        return it.next().integrity().lineHash();
    }

    /** Main's 11th line (segment 2, line 3): a merge of exp at {@code seq}, from commit C1. */
    private void mainMerges(Path c1, long seq) {
        String hash = hashAt(c1, "exp", seq);
        try (Ledger l = Fixtures.open(dir, 4)) {
            l.chain(MAIN).append(List.of(linking(Fixtures.ids(22), "main", "branch_merge", "exp", seq, hash, C1)));
        }
    }

    @Test
    void aMergeOfAChainOnlyACommitHolds_verifiesFromThatCommit_andWithoutHistoryIsABrokenLink() {
        Path c1 = expInCommit();
        mainMerges(c1, 4);
        VerifyResult r = Verifier.verify(dir, Fixtures.keys(), Map.of(), n -> {}, trees(Map.of(C1, c1)));
        assertTrue(r.ok(), r.message());
        assertEquals(11, r.lines(), "the directory's lines");
        assertTrue(r.message().contains("4 lines of 1 linked chain"), r.message());
        assertBad(verify(), VerifyResult.BROKEN_LINK, SEG2, 3, 11L);
        VerifyResult elsewhere = Verifier.verify(dir, Fixtures.keys(), Map.of(), n -> {}, trees(Map.of(C2, c1)));
        assertBad(elsewhere, VerifyResult.BROKEN_LINK, SEG2, 3, 11L);
        assertTrue(
                elsewhere.message().contains("commit " + C1 + ", which the line names, is not in this repository"),
                elsewhere.message());
    }

    @Test
    void aChainReadFromACommit_isVerifiedInFull_andReportedAtThatCommitsFile() throws Exception {
        Path c1 = expInCommit();
        mainMerges(c1, 4);
        Path f = c1.resolve("exp/0000/00000000.ndjson");
        List<String> l = new ArrayList<>(Files.readAllLines(f, StandardCharsets.UTF_8));
        l.set(1, l.get(1).replace("because test 0", "because test X"));
        Files.writeString(f, String.join("\n", l) + "\n", StandardCharsets.UTF_8);
        assertBad(
                Verifier.verify(dir, Fixtures.keys(), Map.of(), n -> {}, trees(Map.of(C1, c1))),
                VerifyResult.CHANGED,
                C1 + ":ledger/exp/0000/00000000.ndjson",
                2,
                2L);
    }

    @Test
    void aLinkPastWhatTheCommitHolds_isABrokenLink_namingHowFarItReaches() {
        Path c1 = expInCommit();
        mainMerges(c1, 4);
        Path c1short = tmp.resolve("c1short/ledger");
        try (Ledger l = Fixtures.open(c1short, 4)) {
            IdGenerator ids = Fixtures.ids(21); // the same first line as c1's: a prefix of the chain
            l.chain(BranchName.of("exp"))
                    .append(List.of(linking(
                            ids,
                            "exp",
                            "branch_fork",
                            "main",
                            7,
                            written.get(6).integrity().lineHash(),
                            "f".repeat(40))));
        }
        VerifyResult r = Verifier.verify(dir, Fixtures.keys(), Map.of(), n -> {}, trees(Map.of(C1, c1short)));
        assertBad(r, VerifyResult.BROKEN_LINK, SEG2, 3, 11L);
        assertTrue(r.message().contains("holds it only up to seq 1"), r.message());
    }

    @Test
    void aDirectoryCopyShortOfTheLinkedLine_isCompletedFromTheCommit_butNeverContradicted() throws Exception {
        Path c1 = expInCommit();
        mainMerges(c1, 4);
        Path onDisk = dir.resolve("exp/0000/00000000.ndjson");
        Files.createDirectories(onDisk.getParent());
        List<String> lines = Files.readAllLines(c1.resolve("exp/0000/00000000.ndjson"), StandardCharsets.UTF_8);
        Files.writeString(onDisk, lines.get(0) + "\n" + lines.get(1) + "\n", StandardCharsets.UTF_8);
        VerifyResult r = Verifier.verify(dir, Fixtures.keys(), Map.of(), n -> {}, trees(Map.of(C1, c1)));
        assertTrue(r.ok(), r.message());

        // Another history of exp in the directory (same fork line, a different second line).
        Files.delete(onDisk);
        try (Ledger l = Fixtures.open(dir, 4)) {
            IdGenerator ids = Fixtures.ids(21);
            Chain exp = l.chain(BranchName.of("exp"));
            exp.append(List.of(linking(
                    ids,
                    "exp",
                    "branch_fork",
                    "main",
                    7,
                    written.get(6).integrity().lineHash(),
                    "f".repeat(40))));
            exp.append(Fixtures.drafts(Fixtures.ids(50), "exp", 7, 1));
        }
        VerifyResult two = Verifier.verify(dir, Fixtures.keys(), Map.of(), n -> {}, trees(Map.of(C1, c1)));
        assertBad(two, VerifyResult.BROKEN_LINK, SEG2, 3, 11L);
        assertTrue(two.message().contains("two histories of one chain"), two.message());
    }

    @Test
    void linksOfAChainReadFromACommit_areFollowedToTheCommitsTheyName() {
        Path c2 = tmp.resolve("c2/ledger");
        try (Ledger l = Fixtures.open(c2, 4)) {
            l.chain(BranchName.of("idea"))
                    .append(List.of(linking(
                            Fixtures.ids(30),
                            "idea",
                            "branch_fork",
                            "main",
                            3,
                            written.get(2).integrity().lineHash(),
                            "e".repeat(40))));
        }
        Path c1 = tmp.resolve("c1/ledger");
        try (Ledger l = Fixtures.open(c1, 4)) {
            l.chain(BranchName.of("exp"))
                    .append(List.of(
                            linking(Fixtures.ids(31), "exp", "branch_fork", "idea", 1, hashAt(c2, "idea", 1), C2)));
        }
        mainMerges(c1, 1);
        assertTrue(Verifier.verify(dir, Fixtures.keys(), Map.of(), n -> {}, trees(Map.of(C1, c1, C2, c2)))
                .ok());
        VerifyResult r = Verifier.verify(dir, Fixtures.keys(), Map.of(), n -> {}, trees(Map.of(C1, c1)));
        assertBad(r, VerifyResult.BROKEN_LINK, C1 + ":ledger/exp/0000/00000000.ndjson", 1, 1L);
    }
}
