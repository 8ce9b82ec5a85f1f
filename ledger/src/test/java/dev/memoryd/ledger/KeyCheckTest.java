package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyCheckTest {
    @TempDir
    Path tmp;

    private Path dir() {
        return tmp.resolve("ledger");
    }

    /** Writes {@code lines} lines to chain {@code branch} signed with {@code keys}, in 4-line segments. */
    private void write(KeyRing keys, String branch, int lines) {
        try (Ledger l = Ledger.open(dir(), keys, Fixtures.options(4, branch.hashCode()))) {
            Chain c = l.chain(BranchName.of(branch));
            c.append(Fixtures.drafts(Fixtures.ids(branch.hashCode()), branch, 0, lines));
            c.sync();
        }
    }

    private Path segment(String branch, long index) {
        return Layout.segmentFile(Layout.chainDir(dir(), BranchName.of(branch)), index);
    }

    @Test
    void theKeyALedgerWasWrittenWith_authenticatesIt_andAnotherDoesNot() {
        write(Fixtures.keys(), "main", 10);
        assertTrue(KeyCheck.authenticates(dir(), Fixtures.keys()));
        assertFalse(KeyCheck.authenticates(dir(), Fixtures.otherKeys()));
    }

    @Test
    void aLedgerWithNoLine_isAuthenticatedByAnyKey() throws Exception {
        assertTrue(KeyCheck.authenticates(dir(), Fixtures.otherKeys()), "no ledger directory");
        Files.createDirectories(segment("main", 0).getParent());
        Files.createFile(segment("main", 0)); // made, then a crash before its first line
        assertTrue(KeyCheck.authenticates(dir(), Fixtures.otherKeys()));
        assertFalse(KeyCheck.hasLines(dir()));
        write(Fixtures.keys(), "main", 1);
        assertTrue(KeyCheck.hasLines(dir()));
    }

    @Test
    void aChangedLastLine_isNotTakenForAnotherKey_whileTheFirstStillVerifies() throws Exception {
        write(Fixtures.keys(), "main", 10);
        Path last = segment("main", 2);
        String text = Files.readString(last);
        int cut = text.lastIndexOf("\"rationale\":\"") + "\"rationale\":\"".length();
        Files.writeString(last, text.substring(0, cut) + "X" + text.substring(cut + 1));
        assertTrue(KeyCheck.authenticates(dir(), Fixtures.keys()));
        assertFalse(KeyCheck.authenticates(dir(), Fixtures.otherKeys()));
    }

    @Test
    void aTornFinalLine_isPassedOver_andLeftAsItIs() throws Exception {
        write(Fixtures.keys(), "main", 6);
        Path last = segment("main", 1);
        byte[] torn = (Files.readString(last) + "{\"seq\":7,\"half").getBytes(StandardCharsets.UTF_8);
        Files.write(last, torn);
        assertTrue(KeyCheck.authenticates(dir(), Fixtures.keys()));
        assertFalse(KeyCheck.authenticates(dir(), Fixtures.otherKeys()));
        assertArrayEquals(torn, Files.readAllBytes(last), "a check cut the torn line");
    }

    @Test
    void oneChainThatVerifies_isEnough_beside_aChainFromAnotherKey() {
        write(Fixtures.otherKeys(), "exp", 3);
        assertFalse(KeyCheck.authenticates(dir(), Fixtures.keys()));
        write(Fixtures.keys(), "main", 3);
        assertTrue(KeyCheck.authenticates(dir(), Fixtures.keys()));
    }

    @Test
    void aRingWithoutTheVersionTheLinesName_doesNotAuthenticate() {
        KeyRing both = KeyRing.of(Map.of(1, Fixtures.master(1), 2, Fixtures.master(3)), 2);
        write(both, "main", 5);
        assertTrue(KeyCheck.authenticates(dir(), both));
        assertFalse(KeyCheck.authenticates(dir(), Fixtures.keys()), "version 1 alone, the lines name version 2");
    }

    @Test
    void linesLongerThanWhatIsReadAtATime_areFoundWhole_atBothEnds() throws Exception {
        java.util.List<EventDraft> drafts = new java.util.ArrayList<>();
        IdGenerator ids = Fixtures.ids(5);
        for (int i = 0; i < 3; i++) {
            EventDraft d = Fixtures.draft(ids, "main", i);
            com.fasterxml.jackson.databind.node.ObjectNode big =
                    (com.fasterxml.jackson.databind.node.ObjectNode) d.payload();
            big.put("item", ("turn " + i + " ").repeat(KeyCheck.CHUNK / 3)); // ~2.5 chunks a line
            drafts.add(Fixtures.withPayload(d, big));
        }
        try (Ledger l = Ledger.open(dir(), Fixtures.keys(), Fixtures.options(4, 5))) {
            Chain c = l.chain(BranchName.of("main"));
            c.append(drafts);
            c.sync();
        }
        Path seg = segment("main", 0);
        assertTrue(Files.size(seg) > 6L * KeyCheck.CHUNK, "lines span several chunks");
        assertTrue(KeyCheck.authenticates(dir(), Fixtures.keys()));
        assertFalse(KeyCheck.authenticates(dir(), Fixtures.otherKeys()));
        // The first line changed: only the last, read backwards across chunks, can verify.
        String text = Files.readString(seg);
        int first = text.indexOf("turn 0 ");
        Files.writeString(seg, text.substring(0, first) + "T" + text.substring(first + 1));
        assertTrue(KeyCheck.authenticates(dir(), Fixtures.keys()));
        // A torn tail longer than a chunk is passed over to the last complete line.
        Files.writeString(seg, Files.readString(seg) + "{\"seq\":4," + "y".repeat(2 * KeyCheck.CHUNK));
        assertTrue(KeyCheck.authenticates(dir(), Fixtures.keys()));
        // The last complete line changed too: nothing verifies.
        text = Files.readString(seg);
        int last = text.lastIndexOf("turn 2 ");
        Files.writeString(seg, text.substring(0, last) + "T" + text.substring(last + 1));
        assertFalse(KeyCheck.authenticates(dir(), Fixtures.keys()));
        assertFalse(KeyCheck.authenticates(dir(), Fixtures.otherKeys()));
    }

    @Test
    void aKeyFileFromBeforeARotation_isRefused_thoughTheChainsFirstLineVerifiesWithIt() {
        write(Fixtures.keys(), "main", 3); // signed with version 1
        KeyRing rotated = KeyRing.of(Map.of(1, Fixtures.master(1), 2, Fixtures.master(3)), 2);
        write(rotated, "main", 2); // appended with version 2: the chain's last line names it
        assertTrue(KeyCheck.mismatch(dir(), rotated).isEmpty());
        String why = KeyCheck.mismatch(dir(), Fixtures.keys()).orElseThrow();
        assertTrue(why.contains("key version 2") && why.contains("chain main"), why);
    }

    @Test
    void loadFor_refusesAnotherKeyFile_andCreateForNewLedger_makesAKeyOnlyForALedgerWithNoLine() throws Exception {
        Path first = tmp.resolve("keys/first.key");
        assertTrue(KeyCheck.createForNewLedger(first, dir(), new SecureRandom()));
        assertFalse(KeyCheck.createForNewLedger(first, dir(), new SecureRandom()), "it exists");
        write(KeyCheck.loadFor(first, dir()), "main", 5);
        assertEquals(
                KeyRing.loadExisting(first).current(),
                KeyCheck.loadFor(first, dir()).current());

        Path missing = tmp.resolve("keys/missing.key");
        KeyRing.MissingKeyFile none = assertThrows(
                KeyRing.MissingKeyFile.class, () -> KeyCheck.createForNewLedger(missing, dir(), new SecureRandom()));
        assertEquals(missing, none.file());
        assertFalse(Files.exists(missing), "a key was made for a ledger it cannot verify");

        Path other = tmp.resolve("keys/other.key");
        KeyRing.loadOrCreate(other, new SecureRandom());
        KeyCheck.WrongKeyFile wrong = assertThrows(KeyCheck.WrongKeyFile.class, () -> KeyCheck.loadFor(other, dir()));
        assertEquals(other, wrong.file());
        assertTrue(wrong.getMessage().contains(other.toString()), wrong.getMessage());
    }
}
