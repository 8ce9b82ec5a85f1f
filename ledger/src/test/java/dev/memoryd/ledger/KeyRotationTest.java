package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Key rotation: new salt version, mixed versions verify, a retired key after its retirement is rejected. */
class KeyRotationTest {
    @TempDir
    Path tmp;

    static EventDraft rotation(IdGenerator ids, int retired, int current) {
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        payload.put("retired", retired);
        payload.put("current", current);
        return new EventDraft(
                ids.next().value(),
                "2025-01-02T03:04:05Z",
                "main",
                "maintainer",
                null,
                null,
                null,
                null,
                Verifier.KEY_ROTATE,
                null,
                null,
                null,
                payload,
                "rotate",
                List.of(),
                null,
                null);
    }

    @Test
    void rotate_addsVersionAndMakesItCurrent_keyFileStays0600() throws Exception {
        Path kf = tmp.resolve("k/ledger.key");
        KeyRing one = KeyRing.loadOrCreate(kf, new SecureRandom());
        KeyRing two = KeyRing.rotate(kf, new SecureRandom());
        assertEquals(1, one.current());
        assertEquals(2, two.current());
        assertEquals(java.util.Set.of(1, 2), two.versions());
        assertTrue(java.util.Arrays.equals(one.lineKey(1), two.lineKey(1)), "old versions must survive");
        assertFalse(java.util.Arrays.equals(two.lineKey(1), two.lineKey(2)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(kf)));
        assertEquals(2, KeyRing.loadOrCreate(kf, new SecureRandom()).current());
    }

    @Test
    void makeCurrent_bringsBackTheRetiringVersion_keepsTheNewerOne_andTheNextRotationSkipsIt() throws Exception {
        Path kf = tmp.resolve("k/ledger.key");
        KeyRing one = KeyRing.loadOrCreate(kf, new SecureRandom());
        KeyRing two = KeyRing.rotate(kf, new SecureRandom());
        KeyRing back = KeyRing.makeCurrent(kf, 1);
        assertEquals(1, back.current());
        assertEquals(java.util.Set.of(1, 2), back.versions());
        assertTrue(java.util.Arrays.equals(one.lineKey(1), back.lineKey(1)));
        assertTrue(java.util.Arrays.equals(two.lineKey(2), back.lineKey(2)), "the newer key is kept, unused");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(kf)));
        assertEquals(1, KeyRing.makeCurrent(kf, 1).current(), "idempotent");
        assertEquals(3, KeyRing.rotate(kf, new SecureRandom()).current());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> KeyRing.makeCurrent(kf, 7));
    }

    @Test
    void mixedVersionsVerify_butARetiredKeyAfterItsRetirementIsRejected() throws Exception {
        Path dir = tmp.resolve("ledger");
        KeyRing v1 = KeyRing.of(Map.of(1, Fixtures.master(1)), 1);
        KeyRing v2 = KeyRing.of(Map.of(1, Fixtures.master(1), 2, Fixtures.master(9)), 2);
        IdGenerator ids = Fixtures.ids(3);
        try (Ledger l = Ledger.open(dir, v1, Fixtures.options(32, 7))) {
            Chain c = l.chain(BranchName.of("main"));
            c.append(Fixtures.drafts(ids, "main", 0, 5));
            c.append(List.of(rotation(ids, 1, 2))); // seq 6, signed with the key it retires
            c.useKeys(v2);
            c.append(Fixtures.drafts(ids, "main", 5, 5));
            c.sync();
            VerifyResult ok = Verifier.verify(dir, v2, Map.of());
            assertTrue(ok.ok(), ok.message());
            assertEquals(11, ok.lines());

            // Someone holding the old key signs one more line after the rotation.
            c.useKeys(KeyRing.of(Map.of(1, Fixtures.master(1), 2, Fixtures.master(9)), 1));
            c.append(Fixtures.drafts(ids, "main", 10, 1));
            c.sync();
        }
        VerifyResult bad = Verifier.verify(dir, v2, Map.of());
        assertFalse(bad.ok());
        assertEquals(VerifyResult.RETIRED_KEY, bad.reason(), bad.message());
        assertEquals(12L, bad.seq());
        assertTrue(bad.message().contains("seq 6"), bad.message());
    }
}
