package dev.memoryd.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.jcs.Jcs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Follows docs/AUDITOR.md (steps 1 to 4.6 and its shortcut) using only javax.crypto, a
 * hand-written HKDF, Jackson for parsing and {@link Jcs}: nothing else of this module is used to
 * verify.
 */
class AuditorRecipeTest {
    @TempDir
    Path tmp;

    static byte[] hmac(byte[] key, byte[] msg) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            return m.doFinal(msg);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Step 2: RFC 5869 with an empty salt (HashLen zeros) and L = 32 (a single T(1) block). */
    static byte[] hkdfSha256(byte[] master, String info) {
        byte[] prk = hmac(new byte[32], master);
        byte[] infoBytes = info.getBytes(StandardCharsets.US_ASCII);
        byte[] t1Input = new byte[infoBytes.length + 1];
        System.arraycopy(infoBytes, 0, t1Input, 0, infoBytes.length);
        t1Input[infoBytes.length] = 0x01;
        return hmac(prk, t1Input);
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x));
        }
        return sb.toString();
    }

    /** The recipe; returns lines checked per chain directory, or throws AssertionError naming the line. */
    static Map<String, Long> audit(Path keyFile, Path ledgerDir) throws Exception {
        ObjectMapper json = new ObjectMapper();
        // Step 1
        JsonNode keyJson = json.readTree(keyFile.toFile());
        Map<Integer, byte[]> lineKeys = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = keyJson.get("keys").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            byte[] master = new byte[32];
            for (int i = 0; i < 32; i++) {
                master[i] = (byte) Integer.parseInt(e.getValue().textValue().substring(2 * i, 2 * i + 2), 16);
            }
            lineKeys.put(Integer.parseInt(e.getKey()), hkdfSha256(master, "memoryd/ledger-line")); // step 2
        }
        // Step 3
        Map<Path, TreeMap<Integer, Path>> chains = new TreeMap<>();
        try (Stream<Path> files = Files.walk(ledgerDir)) {
            files.filter(f -> f.getFileName().toString().matches("\\d{8}\\.ndjson")
                            && f.getParent().getFileName().toString().matches("\\d{4}"))
                    .forEach(f -> chains.computeIfAbsent(f.getParent().getParent(), k -> new TreeMap<>())
                            .put(Integer.parseInt(f.getFileName().toString().substring(0, 8)), f));
        }
        Map<String, Long> checked = new TreeMap<>();
        for (Map.Entry<Path, TreeMap<Integer, Path>> chain : chains.entrySet()) {
            String prevHash = "0".repeat(64);
            long prevSeq = 0;
            String chainId = null;
            for (Path f : chain.getValue().values()) {
                String content = Files.readString(f, StandardCharsets.UTF_8);
                assertTrue(content.isEmpty() || content.endsWith("\n"), f + " ends mid-line");
                String[] lines = content.isEmpty() ? new String[0] : content.split("\n", -1);
                for (int n = 0; n < lines.length - 1; n++) {
                    String where = f + ":" + (n + 1);
                    ObjectNode ev = (ObjectNode) json.readTree(lines[n]); // 4.1
                    assertEquals(lines[n], Jcs.canonicalize(ev), where + " is stored in JCS form");
                    ObjectNode integrity = (ObjectNode) ev.get("integrity");
                    String h = integrity.get("line_hash").textValue();
                    integrity.remove("line_hash"); // 4.2
                    byte[] canonical = Jcs.canonicalBytes(ev); // 4.3
                    byte[] key = lineKeys.get(integrity.get("salt_version").intValue());
                    assertEquals(h, hex(hmac(key, canonical)), where + " HMAC"); // 4.4
                    assertEquals("HMAC-SHA256", integrity.get("algo").textValue(), where);
                    // Shortcut from docs/AUDITOR.md: the stored line minus the line_hash member is the same input.
                    String cut = lines[n].replaceFirst("\"line_hash\":\"" + h + "\",", "");
                    assertEquals(h, hex(hmac(key, cut.getBytes(StandardCharsets.UTF_8))), where + " shortcut");
                    assertEquals(prevHash, integrity.get("prev").textValue(), where + " prev"); // 4.5
                    assertEquals(prevSeq + 1, ev.get("seq").longValue(), where + " seq");
                    if (chainId == null) {
                        chainId = ev.get("chain").textValue();
                    }
                    assertEquals(chainId, ev.get("chain").textValue(), where + " chain");
                    prevHash = h; // 4.6
                    prevSeq = ev.get("seq").longValue();
                }
            }
            checked.put(ledgerDir.relativize(chain.getKey()).toString(), prevSeq);
        }
        return checked;
    }

    @Test
    void aThirdPartyFollowingTheWrittenRecipeVerifiesTheLedger() throws Exception {
        Path keyFile = tmp.resolve("keys/ledger.key");
        KeyRing keys = KeyRing.loadOrCreate(keyFile, KeyRingTest.fixedRandom(3));
        Path dir = tmp.resolve("root/ledger");
        try (Ledger ledger = Ledger.open(dir, keys, Fixtures.options(5, 1))) {
            IdGenerator ids = Fixtures.ids(4);
            ledger.chain(BranchName.of("main")).append(Fixtures.drafts(ids, "main", 0, 12));
            ledger.chain(BranchName.of("proposals/x1")).append(Fixtures.drafts(ids, "proposals/x1", 0, 3));
        }
        Map<String, Long> checked = audit(keyFile, dir);
        assertEquals(Map.of("main", 12L, "proposals/x1", 3L), checked);
    }

    @Test
    void theRecipeRejectsAChangedLine() throws Exception {
        Path keyFile = tmp.resolve("keys/ledger.key");
        KeyRing keys = KeyRing.loadOrCreate(keyFile, KeyRingTest.fixedRandom(3));
        Path dir = tmp.resolve("root/ledger");
        try (Ledger ledger = Ledger.open(dir, keys, Fixtures.options(5, 1))) {
            ledger.chain(BranchName.of("main")).append(Fixtures.drafts(Fixtures.ids(4), "main", 0, 3));
        }
        Path seg = dir.resolve("main/0000/00000000.ndjson");
        Files.writeString(seg, Files.readString(seg).replace("because test 1", "because test 9"));
        boolean failed;
        try {
            audit(keyFile, dir);
            failed = false;
        } catch (AssertionError expected) {
            failed = true;
        }
        assertTrue(failed);
        assertFalse(Verifier.verify(dir, keys, Map.of()).ok());
    }
}
