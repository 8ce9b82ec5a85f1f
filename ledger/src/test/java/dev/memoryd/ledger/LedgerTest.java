package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.jcs.Jcs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerTest {
    private static final BranchName MAIN = BranchName.of("main");

    @TempDir
    Path tmp;

    private Path dir() {
        return tmp.resolve("ledger");
    }

    private static List<Event> all(Chain c) {
        List<Event> out = new ArrayList<>();
        c.read(1).forEachRemaining(out::add);
        return out;
    }

    private static void assertChained(List<Event> events) {
        String prev = Integrity.GENESIS_PREV;
        for (int i = 0; i < events.size(); i++) {
            assertEquals(i + 1, events.get(i).seq());
            assertEquals(prev, events.get(i).integrity().prev());
            prev = events.get(i).integrity().lineHash();
        }
    }

    @Test
    void appendsReopensAndContinuesTheChain() {
        Head head;
        String chainId;
        try (Ledger l = Fixtures.open(dir(), 128)) {
            Chain c = l.chain(MAIN);
            assertEquals(Head.EMPTY, c.head());
            List<Event> written = c.append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 10));
            assertEquals(10, written.size());
            assertEquals(Integrity.GENESIS_PREV, written.get(0).integrity().prev());
            c.sync();
            head = c.head();
            chainId = c.id();
            assertEquals(new Head(10, written.get(9).integrity().lineHash()), head);
        }
        try (Ledger l = Fixtures.open(dir(), 128)) {
            assertEquals(Set.of(MAIN), l.branches());
            assertTrue(l.recoveryNotes().isEmpty());
            Chain c = l.chain(MAIN);
            assertEquals(head, c.head());
            assertEquals(chainId, c.id());
            c.append(Fixtures.drafts(Fixtures.ids(2), "main", 10, 5));
            List<Event> events = all(c);
            assertEquals(15, events.size());
            assertChained(events);
            assertTrue(events.stream().allMatch(e -> e.chain().equals(chainId)));
        }
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
    }

    @Test
    void storedLineIsTheJcsFormOfTheEventPlusNewline() throws Exception {
        try (Ledger l = Fixtures.open(dir(), 128)) {
            Event e = l.chain(MAIN)
                    .append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 1))
                    .get(0);
            String stored = Files.readString(dir().resolve("main/0000/00000000.ndjson"));
            assertEquals(Jcs.canonicalize(e.toJson()) + "\n", stored);
        }
    }

    @Test
    void rollsOverSegmentsAndLinksPrevAcrossFiles() throws Exception {
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            c.append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 3));
            c.append(Fixtures.drafts(Fixtures.ids(2), "main", 3, 7)); // spans segments 0, 1 and 2
            assertChained(all(c));
        }
        List<String> seg0 = Files.readAllLines(dir().resolve("main/0000/00000000.ndjson"));
        List<String> seg1 = Files.readAllLines(dir().resolve("main/0000/00000001.ndjson"));
        List<String> seg2 = Files.readAllLines(dir().resolve("main/0000/00000002.ndjson"));
        assertEquals(List.of(4, 4, 2), List.of(seg0.size(), seg1.size(), seg2.size()));
        Event last0 = Event.fromJson(LineCodec.JSON.readTree(seg0.get(3)));
        Event first1 = Event.fromJson(LineCodec.JSON.readTree(seg1.get(0)));
        assertEquals(5, first1.seq());
        assertEquals(last0.integrity().lineHash(), first1.integrity().prev());
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            assertEquals(10, c.head().seq());
            c.append(Fixtures.drafts(Fixtures.ids(3), "main", 10, 3)); // fills segment 2, opens 3
            assertChained(all(c));
        }
        assertTrue(Files.exists(dir().resolve("main/0000/00000003.ndjson")));
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
    }

    @Test
    void groupsEvery256SegmentsIntoANewDirectory() {
        try (Ledger l = Fixtures.open(dir(), 1)) {
            l.chain(MAIN).append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 258));
        }
        assertTrue(Files.exists(dir().resolve("main/0000/00000255.ndjson")));
        assertTrue(Files.exists(dir().resolve("main/0001/00000256.ndjson")));
        assertTrue(Files.exists(dir().resolve("main/0001/00000257.ndjson")));
        try (Ledger l = Fixtures.open(dir(), 1)) {
            assertEquals(258, l.chain(MAIN).head().seq());
        }
        VerifyResult r = Verifier.verify(dir(), Fixtures.keys(), Map.of());
        assertTrue(r.ok(), r.message());
        assertEquals(258, r.lines());
    }

    @Test
    void dirtySegmentsReturnsTheFullBytesOfTouchedSegmentsOnce() throws Exception {
        try (Ledger l = Ledger.open(tmp.resolve("ledger"), Fixtures.keys(), Fixtures.options(4, 1))) {
            Chain c = l.chain(BranchName.of("proposals/p1"));
            c.append(Fixtures.drafts(Fixtures.ids(1), "proposals/p1", 0, 6));
            Map<String, byte[]> dirty = c.dirtySegments();
            assertEquals(
                    List.of("ledger/proposals/p1/0000/00000000.ndjson", "ledger/proposals/p1/0000/00000001.ndjson"),
                    new ArrayList<>(dirty.keySet()));
            for (Map.Entry<String, byte[]> e : dirty.entrySet()) {
                assertArrayEquals(Files.readAllBytes(tmp.resolve(e.getKey())), e.getValue());
            }
            assertTrue(c.dirtySegments().isEmpty());
            c.append(Fixtures.drafts(Fixtures.ids(2), "proposals/p1", 6, 1));
            dirty = c.dirtySegments();
            assertEquals(Set.of("ledger/proposals/p1/0000/00000001.ndjson"), dirty.keySet());
            assertEquals(3, new String(dirty.values().iterator().next(), StandardCharsets.UTF_8).split("\n").length);
        }
    }

    @Test
    void appendCostStaysBoundedBySegmentSizeAsHistoryGrows() {
        try (Ledger l = Fixtures.open(dir(), 128)) {
            Chain c = l.chain(MAIN);
            IdGenerator ids = Fixtures.ids(1);
            for (int i = 0; i < 2000; i += 100) {
                c.append(Fixtures.drafts(ids, "main", i, 100));
            }
            c.dirtySegments();
            c.append(Fixtures.drafts(ids, "main", 2000, 1));
            Map<String, byte[]> dirty = c.dirtySegments();
            assertEquals(1, dirty.size());
            int bytes = dirty.values().iterator().next().length;
            assertTrue(bytes <= 128 * 1024, "one segment only, got " + bytes + " bytes");
        }
    }

    @Test
    void readsFromAnySeqAcrossSegments() {
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            c.append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 10));
            Iterator<Event> it = c.read(6);
            List<Long> seqs = new ArrayList<>();
            it.forEachRemaining(e -> seqs.add(e.seq()));
            assertEquals(List.of(6L, 7L, 8L, 9L, 10L), seqs);
            assertFalse(c.read(11).hasNext());
        }
    }

    @Test
    void truncateAfterDropsUnacknowledgedLinesRewritingOnlyTheAffectedSegment() throws Exception {
        Path seg0 = dir().resolve("main/0000/00000000.ndjson");
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            List<Event> written = c.append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 10));
            c.sync();
            byte[] seg0Before = Files.readAllBytes(seg0);
            long seg0Modified = Files.getLastModifiedTime(seg0).toMillis();
            c.dirtySegments();
            c.truncateAfter(5);
            assertEquals(new Head(5, written.get(4).integrity().lineHash()), c.head());
            assertFalse(Files.exists(dir().resolve("main/0000/00000002.ndjson")));
            assertEquals(
                    1,
                    Files.readAllLines(dir().resolve("main/0000/00000001.ndjson"))
                            .size());
            assertArrayEquals(seg0Before, Files.readAllBytes(seg0));
            assertEquals(seg0Modified, Files.getLastModifiedTime(seg0).toMillis());
            assertEquals(
                    Set.of("ledger/main/0000/00000001.ndjson"),
                    c.dirtySegments().keySet());
            c.append(Fixtures.drafts(Fixtures.ids(2), "main", 100, 4));
            assertChained(all(c));
            assertEquals(9, c.head().seq());
        }
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            assertEquals(9, c.head().seq());
            c.truncateAfter(0);
            assertEquals(Head.EMPTY, c.head());
            c.append(Fixtures.drafts(Fixtures.ids(3), "main", 0, 2));
            assertChained(all(c));
        }
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
    }

    @Test
    void tornFinalLineWithoutNewlineIsCutOnOpenAndReported() throws Exception {
        Fixtures.write(dir(), "main", 6, 4);
        Path seg1 = dir().resolve("main/0000/00000001.ndjson");
        String good = Files.readString(seg1);
        Files.writeString(
                seg1,
                good.substring(0, good.length() - 1) + "\n{\"seq\":7,\"event_id\":\"01J",
                StandardOpenOption.TRUNCATE_EXISTING);
        try (Ledger l = Fixtures.open(dir(), 4)) {
            assertEquals(1, l.recoveryNotes().size(), l.recoveryNotes().toString());
            assertTrue(
                    l.recoveryNotes().get(0).startsWith("ledger/main/0000/00000001.ndjson: dropped a torn final line"));
            assertEquals(good, Files.readString(seg1));
            Chain c = l.chain(MAIN);
            assertEquals(6, c.head().seq());
            c.append(Fixtures.drafts(Fixtures.ids(5), "main", 6, 3));
        }
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
    }

    @Test
    void unparseableFinalLineIsCutOnOpenAndReported() throws Exception {
        Fixtures.write(dir(), "main", 3, 4);
        Path seg0 = dir().resolve("main/0000/00000000.ndjson");
        String good = Files.readString(seg0);
        Files.writeString(seg0, good + "\u0000\u0000garbage\n");
        try (Ledger l = Fixtures.open(dir(), 4)) {
            assertEquals(1, l.recoveryNotes().size());
            assertTrue(
                    l.recoveryNotes().get(0).contains("unparseable final line"),
                    l.recoveryNotes().get(0));
            assertEquals(good, Files.readString(seg0));
            assertEquals(3, l.chain(MAIN).head().seq());
        }
    }

    @Test
    void openReadsOnlyTheLastSegmentOfEachChain() throws Exception {
        Fixtures.write(dir(), "main", 10, 4);
        // Corrupt an old segment: open must not notice (it reads only the last one); verify does.
        Path seg0 = dir().resolve("main/0000/00000000.ndjson");
        Files.writeString(seg0, "not even json\n");
        try (Ledger l = Fixtures.open(dir(), 4)) {
            assertEquals(10, l.chain(MAIN).head().seq());
        }
        assertFalse(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
    }

    @Test
    void refusesToOpenWithADifferentSegmentSize() {
        Fixtures.write(dir(), "main", 10, 4);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Fixtures.open(dir(), 128));
        assertTrue(e.getMessage().contains("segmentLines"), e.getMessage());
    }

    @Test
    void aDraftForAnotherBranchIsRejectedAndNothingIsWritten() {
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            IdGenerator ids = Fixtures.ids(1);
            List<EventDraft> drafts = new ArrayList<>(Fixtures.drafts(ids, "main", 0, 2));
            drafts.add(Fixtures.draft(ids, "other", 2));
            assertThrows(IllegalArgumentException.class, () -> c.append(drafts));
            assertEquals(Head.EMPTY, c.head());
            assertTrue(c.dirtySegments().isEmpty());
            assertFalse(Files.exists(dir().resolve("main")));
        }
    }

    @Test
    void keepsOneChainPerBranchIncludingNestedNames() {
        try (Ledger l = Fixtures.open(dir(), 4)) {
            l.chain(MAIN).append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 2));
            l.chain(BranchName.of("proposals/01JGZ5P0000000000000000000"))
                    .append(Fixtures.drafts(Fixtures.ids(2), "proposals/01JGZ5P0000000000000000000", 0, 3));
        }
        try (Ledger l = Fixtures.open(dir(), 4)) {
            assertEquals(Set.of(MAIN, BranchName.of("proposals/01JGZ5P0000000000000000000")), l.branches());
            assertEquals(
                    3,
                    l.heads()
                            .get(BranchName.of("proposals/01JGZ5P0000000000000000000"))
                            .seq());
            assertNotNull(l.chain(MAIN).id());
        }
    }

    @Test
    void activeSegmentReplacedByAnOlderVersion_isPutBack_beforeTheNextAppend() throws Exception {
        Path seg = dir().resolve("main/0000/00000000.ndjson");
        try (Ledger l = Fixtures.open(dir(), 32)) {
            Chain c = l.chain(MAIN);
            c.append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 3));
            c.sync();
            byte[] three = java.nio.file.Files.readAllBytes(seg);
            c.append(Fixtures.drafts(Fixtures.ids(2), "main", 3, 2));
            c.sync();
            // What `git reset --hard` does to a tracked file: a new file with the older content, renamed over it.
            Path older = seg.resolveSibling("older");
            java.nio.file.Files.write(older, three);
            java.nio.file.Files.move(older, seg, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            c.append(Fixtures.drafts(Fixtures.ids(3), "main", 5, 1));
            c.sync();
            assertEquals(1, c.restoredSegments());
        }
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), java.util.Map.of()).ok());
        assertEquals(6, java.nio.file.Files.readAllLines(seg).size(), "every line is in the file at the path");
    }

    @Test
    void activeSegmentReplacedByForeignBytes_isNotOverwritten() throws Exception {
        Path seg = dir().resolve("main/0000/00000000.ndjson");
        try (Ledger l = Fixtures.open(dir(), 32)) {
            Chain c = l.chain(MAIN);
            c.append(Fixtures.drafts(Fixtures.ids(1), "main", 0, 2));
            c.sync();
            Path other = seg.resolveSibling("other");
            java.nio.file.Files.writeString(other, "{\"not\":\"ours\"}\n");
            java.nio.file.Files.move(other, seg, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            assertThrows(IllegalStateException.class, () -> c.append(Fixtures.drafts(Fixtures.ids(2), "main", 2, 1)));
        }
        assertEquals("{\"not\":\"ours\"}\n", java.nio.file.Files.readString(seg));
    }
}
