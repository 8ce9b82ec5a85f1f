package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Random;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyRingTest {
    @TempDir
    Path tmp;

    /** Deterministic SecureRandom for tests (never use outside tests). */
    @SuppressWarnings("serial")
    static SecureRandom fixedRandom(long seed) {
        Random r = new Random(seed);
        return new SecureRandom() {
            @Override
            public void nextBytes(byte[] bytes) {
                r.nextBytes(bytes);
            }

            @Override
            public long nextLong() {
                return r.nextLong();
            }
        };
    }

    @Test
    void createsAMissingKeyFileWithMode0600InsidePrivateDirectories() throws Exception {
        Path file = tmp.resolve("cfg/memoryd/ledger.key");
        KeyRing ring = KeyRing.loadOrCreate(file, fixedRandom(1));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("cfg"))));
        assertEquals(1, ring.current());
        String text = Files.readString(file);
        assertTrue(
                text.matches("(?s)\\{\\s*\"current\" : 1,\\s*\"keys\" : \\{\\s*\"1\" : \"[0-9a-f]{64}\"\\s*}\\s*}\\s*"),
                text);
        try (var s = Files.list(file.getParent())) {
            assertEquals(1, s.count(), "no temp file left behind");
        }
    }

    @Test
    void reloadsTheSameKeysFromAnExistingFile() {
        Path file = tmp.resolve("ledger.key");
        KeyRing a = KeyRing.loadOrCreate(file, fixedRandom(1));
        KeyRing b = KeyRing.loadOrCreate(file, fixedRandom(2));
        assertArrayEquals(a.lineKey(1), b.lineKey(1));
        assertEquals(a.contentHasher().hash("x"), b.contentHasher().hash("x"));
    }

    @Test
    void refusesAGroupOrWorldReadableKeyFile() throws Exception {
        Path file = tmp.resolve("ledger.key");
        KeyRing.loadOrCreate(file, fixedRandom(1));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> KeyRing.loadOrCreate(file, fixedRandom(1)));
        assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        assertThrows(IllegalStateException.class, () -> KeyRing.loadOrCreate(file, fixedRandom(1)));
    }

    @Test
    void refusesMalformedKeyFilesNamingTheProblem() throws Exception {
        String[] bad = {
            "not json",
            "[]",
            "{\"current\":1}",
            "{\"current\":2,\"keys\":{\"1\":\"" + "ab".repeat(32) + "\"}}",
            "{\"current\":1,\"keys\":{\"1\":\"abc\"}}",
            "{\"current\":1,\"keys\":{\"x\":\"" + "ab".repeat(32) + "\"}}"
        };
        for (String content : bad) {
            Path file = tmp.resolve("bad.key");
            Files.deleteIfExists(file);
            Files.writeString(file, content);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            IllegalStateException e = assertThrows(
                    IllegalStateException.class, () -> KeyRing.loadOrCreate(file, fixedRandom(1)), content);
            assertTrue(e.getMessage().contains("bad.key"), e.getMessage());
        }
    }

    @Test
    void rejectsUnknownVersionsClearly() {
        KeyRing ring = Fixtures.keys();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ring.lineKey(9));
        assertTrue(e.getMessage().contains("unknown key version 9"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KeyRing.of(Map.of(1, Fixtures.master(1)), 2));
    }

    @Test
    void contentHashIsLowercaseHexHmacSha256UnderTheContentKey() throws Exception {
        KeyRing ring = Fixtures.keys();
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(ring.contentKey(1), "HmacSHA256"));
        String expected = Hex.encode(mac.doFinal("## Identity\nÉtienne\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals(expected, ring.contentHasher().hash("## Identity\nÉtienne\n"));
        assertNotEquals(expected, Fixtures.otherKeys().contentHasher().hash("## Identity\nÉtienne\n"));
        assertNotEquals(Hex.encode(ring.lineKey(1)), Hex.encode(ring.contentKey(1)));
    }

    @Test
    void contentHasherIsSafeAcrossThreads() throws Exception {
        ContentHasher h = Fixtures.keys().contentHasher();
        String expected = h.hash("text");
        var pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            var futures = new java.util.ArrayList<java.util.concurrent.Future<Boolean>>();
            for (int t = 0; t < 8; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 2000; i++) {
                        if (!expected.equals(h.hash("text"))) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (var f : futures) {
                assertTrue(f.get());
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void toStringNeverShowsKeyMaterial() {
        assertEquals("KeyRing[current=1, versions=[1]]", Fixtures.keys().toString());
    }
}
