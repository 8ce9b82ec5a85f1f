package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** ledger.rotate_key through the daemon: later lines use the new key, everything verifies, hashes stay usable. */
class KeyRotationDaemonTest extends ServedRootTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    private JsonNode append(String item) throws Exception {
        return root.call(
                "write",
                "{\"rationale\":\"t\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                        + "\",\"section\":\"Triggers\",\"item\":\"" + item + "\"}]}");
    }

    private List<JsonNode> lines() throws Exception {
        try (Stream<Path> s = Files.walk(root.cfg.ledgerDir())) {
            return s.filter(p -> p.toString().endsWith(".ndjson"))
                    .sorted()
                    .flatMap(p -> {
                        try {
                            return Files.readAllLines(p).stream();
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .map(l -> {
                        try {
                            return JsonRpc.MAPPER.readTree(l);
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .skip(TestRoot.IMPORT_LINES)
                    .toList();
        }
    }

    @Test
    void rotateKey_laterLinesUseNewVersion_ledgerVerifies_acrossRestart() throws Exception {
        assertTrue(append("before rotation").has("result"));
        JsonNode r = root.call("ledger.rotate_key", null);
        assertTrue(r.has("result"), r.toString());
        assertTrue(append("after rotation").has("result"));
        List<JsonNode> ls = lines();
        assertEquals(3, ls.size());
        assertEquals(1, ls.get(0).get("integrity").get("salt_version").asInt());
        assertEquals("key_rotate", ls.get(1).get("op").asText());
        assertEquals(
                1,
                ls.get(1).get("integrity").get("salt_version").asInt(),
                "the rotation is signed by the retiring key");
        assertEquals(2, ls.get(2).get("integrity").get("salt_version").asInt());
        assertTrue(root.call("ledger.verify", null).get("result").get("ok").asBoolean());

        // a hash read after the rotation is a valid before_hash
        String h = root.call("read", "{\"path\":\"" + CRITIC + "\",\"section\":\"Role\"}")
                .get("result")
                .get("hash")
                .asText();
        JsonNode w = root.call(
                "write",
                "{\"rationale\":\"t\",\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + CRITIC
                        + "\",\"section\":\"Role\",\"content\":\"New role.\",\"before_hash\":\"" + h + "\"}]}");
        assertTrue(w.has("result"), w.toString());

        root.daemon.close();
        root.serve();
        assertTrue(append("after restart").has("result"));
        assertEquals(2, lines().get(4).get("integrity").get("salt_version").asInt());
        JsonNode v = root.call("ledger.verify", null).get("result");
        assertTrue(v.get("ok").asBoolean(), v.toString());
        assertEquals(TestRoot.IMPORT_LINES + 5, v.get("lines").asInt());
        assertTrue(PayloadLines.assertTyped(root.dir) > 0, "every line recorded, read back typed, parses");
    }
}
