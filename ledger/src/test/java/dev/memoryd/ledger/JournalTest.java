package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTest {
    private static final BranchName MAIN = BranchName.of("main");

    @TempDir
    Path tmp;

    private Path dir() {
        return tmp.resolve("ledger");
    }

    /** Lines forced to the journal and never written to the segment: what a writer stopped in between leaves. */
    private Journal.Entry stoppedBetweenJournalAndSegment(int before, int prepared) throws Exception {
        Path journal = tmp.resolve("state/ledger.journal");
        try (Ledger l = Fixtures.open(dir(), 4);
                Journal j = Journal.open(journal)) {
            Chain c = l.chain(MAIN);
            c.append(Fixtures.drafts(Fixtures.ids(1), "main", 0, before));
            c.sync();
            c.prepare(Fixtures.drafts(Fixtures.ids(2), "main", before, prepared));
            c.journalPrepared(j);
            c.discardPrepared(); // the writer stopped: nothing reached the segment
        }
        return Journal.read(journal).orElseThrow();
    }

    @Test
    void linesTheJournalHoldsAreAppendedWhenTheChainEndsWhereItBegan() throws Exception {
        Journal.Entry left = stoppedBetweenJournalAndSegment(3, 3); // spans segments 0 and 1
        assertEquals(3, left.baseSeq());
        assertEquals(6, left.lastSeq());
        List<String> notes = new ArrayList<>();
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            assertEquals(3, c.head().seq());
            try (Journal j = Journal.openFor(tmp.resolve("state/ledger.journal"), c, notes)) {
                assertEquals(6, c.head().seq());
            }
        }
        assertEquals(1, notes.size(), notes.toString());
        assertTrue(notes.get(0).contains("took back 3 line(s)"), notes.get(0));
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
        assertEquals(0, Files.size(tmp.resolve("state/ledger.journal")), "the journal is cleared once applied");
        try (Ledger l = Fixtures.open(dir(), 4)) {
            assertEquals(6, l.chain(MAIN).head().seq(), "the lines were forced to the segments");
        }
    }

    @Test
    void aSegmentThatReachedTheDiskInPart_getsTheRestOfTheJournalsLines() throws Exception {
        Journal.Entry left = stoppedBetweenJournalAndSegment(2, 3); // lines 3, 4, 5
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            // The segment kept line 3 only: as after a power loss that wrote back part of its page.
            assertEquals(
                    1,
                    c.applyJournal(new Journal.Entry(
                            MAIN, 2, left.baseHash(), left.lines().subList(0, 1))));
            assertEquals(3, c.head().seq());
            assertEquals(2, c.applyJournal(left));
            assertEquals(5, c.head().seq());
            assertEquals(0, c.applyJournal(left), "nothing is appended twice");
        }
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
    }

    @Test
    void aJournalWhoseFirstLinesDifferFromTheChains_isStale() throws Exception {
        Journal.Entry left = stoppedBetweenJournalAndSegment(2, 2); // lines 3, 4
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            c.append(Fixtures.drafts(Fixtures.ids(5), "main", 2, 1)); // another line took seq 3
            c.sync();
            assertEquals(0, c.applyJournal(left));
            assertEquals(3, c.head().seq());
        }
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
    }

    @Test
    void aSyncLaterTaskRunOnAnotherThread_whileTheNextLinesArePrepared_leavesAVerifyingLedger() throws Exception {
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                java.util.concurrent.Future<?> last = null;
                for (int i = 0; i < 12; i++) {
                    // Prepared while the force before runs; written (rolling over segments) once it returned.
                    c.prepare(Fixtures.drafts(Fixtures.ids(10 + i), "main", i * 3, 3));
                    if (last != null) {
                        last.get();
                    }
                    c.writePrepared();
                    Chain.Force f = c.syncLater();
                    last = other.submit(() -> {
                        f.run();
                        return null;
                    });
                }
                last.get();
            } finally {
                other.shutdown();
            }
            assertEquals(36, c.head().seq());
        }
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
    }

    @Test
    void aJournalTheChainHasMovedPastIsIgnored() throws Exception {
        Journal.Entry left = stoppedBetweenJournalAndSegment(2, 2);
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            c.append(Fixtures.drafts(Fixtures.ids(5), "main", 2, 1)); // other lines took seq 3
            c.sync();
            assertEquals(0, c.applyJournal(left));
            assertEquals(3, c.head().seq());
        }
        assertTrue(Verifier.verify(dir(), Fixtures.keys(), Map.of()).ok());
    }

    /**
     * The journal's directory removed while the writer runs (a {@code git clean -fdx} of the state
     * directory): the next lines are forced to a journal at its path again, where a start after a
     * crash finds them. Before, they went to the removed file, which no start could read.
     */
    @Test
    void aJournalRemovedWithItsDirectory_isMadeAgainForTheNextLines() throws Exception {
        Path journal = tmp.resolve("state/ledger.journal");
        try (Ledger l = Fixtures.open(dir(), 4);
                Journal j = Journal.open(journal)) {
            Chain c = l.chain(MAIN);
            c.prepare(Fixtures.drafts(Fixtures.ids(1), "main", 0, 1));
            c.journalPrepared(j);
            c.writePrepared();
            c.sync();
            j.clear(true);
            Files.delete(journal);
            Files.delete(journal.getParent());

            c.prepare(Fixtures.drafts(Fixtures.ids(2), "main", 1, 2));
            c.journalPrepared(j);
            c.discardPrepared(); // stopped before the segment
            assertTrue(Files.isRegularFile(journal), "the journal is at its path again");
            assertEquals(
                    "rwx------",
                    java.nio.file.attribute.PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(journal.getParent())));
        }
        Journal.Entry left = Journal.read(journal).orElseThrow();
        assertEquals(1, left.baseSeq());
        try (Ledger l = Fixtures.open(dir(), 4)) {
            assertEquals(2, l.chain(MAIN).applyJournal(left));
            assertEquals(3, l.chain(MAIN).head().seq());
        }
    }

    @Test
    void aJournalWhoseLinesAreAlreadyInTheChainIsIgnored() throws Exception {
        Path journal = tmp.resolve("state/ledger.journal");
        try (Ledger l = Fixtures.open(dir(), 4);
                Journal j = Journal.open(journal)) {
            Chain c = l.chain(MAIN);
            c.prepare(Fixtures.drafts(Fixtures.ids(2), "main", 0, 2));
            c.journalPrepared(j);
            c.writePrepared();
            c.sync(); // stopped after the segment was forced, before the journal was cleared
        }
        try (Ledger l = Fixtures.open(dir(), 4)) {
            assertEquals(0, l.chain(MAIN).applyJournal(Journal.read(journal).orElseThrow()));
            assertEquals(2, l.chain(MAIN).head().seq());
        }
    }

    @Test
    void aTamperedJournalLineIsRefusedAndNothingIsAppended() throws Exception {
        stoppedBetweenJournalAndSegment(1, 2);
        Path journal = tmp.resolve("state/ledger.journal");
        String text = Files.readString(journal, StandardCharsets.UTF_8);
        Files.writeString(journal, text.replace("Item number 2", "Item number 9"), StandardCharsets.UTF_8);
        try (Ledger l = Fixtures.open(dir(), 4)) {
            Chain c = l.chain(MAIN);
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> c.applyJournal(Journal.read(journal).orElseThrow()));
            assertTrue(e.getMessage().contains("does not verify"), e.getMessage());
            assertEquals(1, c.head().seq());
        }
    }

    @Test
    void aTornOrEmptyJournalHoldsNothing() throws Exception {
        stoppedBetweenJournalAndSegment(1, 2);
        Path journal = tmp.resolve("state/ledger.journal");
        byte[] bytes = Files.readAllBytes(journal);
        Files.write(journal, java.util.Arrays.copyOf(bytes, bytes.length - 5));
        assertEquals(Optional.empty(), Journal.read(journal), "a line without its newline never reached the force");
        Files.write(journal, new byte[0]);
        assertEquals(Optional.empty(), Journal.read(journal));
        assertEquals(Optional.empty(), Journal.read(tmp.resolve("state/none")));
    }

    @Test
    void clearingForgetsWhatTheJournalHeld() throws Exception {
        Path journal = tmp.resolve("state/ledger.journal");
        try (Ledger l = Fixtures.open(dir(), 4);
                Journal j = Journal.open(journal)) {
            Chain c = l.chain(MAIN);
            c.prepare(Fixtures.drafts(Fixtures.ids(2), "main", 0, 2));
            c.journalPrepared(j);
            assertTrue(Journal.read(journal).isPresent());
            j.clear(true);
            assertEquals(Optional.empty(), Journal.read(journal));
            c.discardPrepared();
        }
    }
}
