package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.EventDraft;
import dev.memoryd.ledger.IdGenerator;
import dev.memoryd.ledger.KeyRing;
import dev.memoryd.ledger.Ledger;
import dev.memoryd.ledger.LedgerOptions;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kill while a batch's ledger lines are being written can leave a declaration with only some
 * of its events durable. Recovery must drop them rather than redo half a declaration (found by
 * CrashSafetyTest: one of two files had the item).
 */
class TornDeclarationRecoveryTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    static final String YOUNG = "users/sam/parts/young-one/profile.md";

    @TempDir
    Path tmp;

    @Test
    void declarationCutOffMidWrite_isDroppedWhole_notHalfApplied() throws Exception {
        try (TestRoot root = new TestRoot(tmp)) {
            root.serve();
            assertTrue(root.call(
                            "write",
                            "{\"rationale\":\"ok\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                                    + "\",\"section\":\"Triggers\",\"item\":\"complete one\"}]}")
                    .has("result"));
            root.daemon.close();
            root.daemon = null;

            // What a kill leaves: the first of a two-event declaration's lines is durable, the second
            // never made it, and no commit followed.
            KeyRing keys = KeyRing.loadOrCreate(root.cfg.keyFile(), new SecureRandom());
            IdGenerator ids = IdGenerator.system();
            try (Ledger l = Ledger.open(root.cfg.ledgerDir(), keys, new LedgerOptions(root.cfg.segmentLines(), ids))) {
                Chain c = l.chain(new BranchName("main"));
                ObjectNode payload =
                        (ObjectNode) JsonRpc.MAPPER.readTree("{\"op\":{\"op\":\"append_item\",\"path\":\"" + CRITIC
                                + "\",\"section\":\"Triggers\",\"item\":\"torn half\"},\"decl\":{\"id\":\""
                                + ids.next().value()
                                + "\",\"index\":0,\"count\":2}}");
                String ts = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
                c.append(List.of(new EventDraft(
                        ids.next().value(),
                        ts,
                        "main",
                        "agent",
                        "sam",
                        "part",
                        "inner-critic",
                        CRITIC,
                        "append_item",
                        "triggers",
                        null,
                        null,
                        payload,
                        "torn",
                        List.of(),
                        null,
                        null)));
                c.sync();
            }

            root.serve();
            assertFalse(root.file(CRITIC).contains("- torn half\n"), "half a declaration was redone");
            assertTrue(root.file(CRITIC).contains("- complete one\n"));
            JsonNode v = root.call("ledger.verify", null).get("result");
            assertTrue(v.get("ok").asBoolean(), v.toString());
            assertEquals(
                    TestRoot.IMPORT_LINES + 1, v.get("lines").asInt(), "the cut-off line must be gone from the ledger");
            assertTrue(root.call(
                            "write",
                            "{\"rationale\":\"after\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + YOUNG
                                    + "\",\"section\":\"Needs\",\"item\":\"after recovery\"}]}")
                    .has("result"));
            assertEquals(
                    TestRoot.IMPORT_LINES + 2,
                    root.call("ledger.verify", null).get("result").get("lines").asInt());
        }
    }
}
