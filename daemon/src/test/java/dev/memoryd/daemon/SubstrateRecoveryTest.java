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

/** A declaration whose ledger lines are durable but never reached the branch is redone from its payloads. */
class SubstrateRecoveryTest {
    @TempDir
    Path tmp;

    @Test
    void unpublishedDeclaration_isRolledForward_andInTheGraphAfterStart() throws Exception {
        try (TestRoot root = new TestRoot(tmp)) {
            root.serve();
            JsonNode r = root.call("declare", "{\"chunks\":[{\"name\":\"topic\"}]}");
            String topic = r.get("result").get("created").get(0).get("id").asText();
            root.daemon.close();
            root.daemon = null;

            // What a kill between the ledger fsync and the ref update leaves: the event, no file, no commit.
            KeyRing keys = KeyRing.loadOrCreate(root.cfg.keyFile(), new SecureRandom());
            IdGenerator ids = IdGenerator.system();
            String chunk = ids.next().value();
            String ts = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
            try (Ledger l = Ledger.open(root.cfg.ledgerDir(), keys, new LedgerOptions(root.cfg.segmentLines(), ids))) {
                Chain c = l.chain(new BranchName("main"));
                ObjectNode payload = (ObjectNode) JsonRpc.MAPPER.readTree("{\"chunk\":{\"id\":\"" + chunk
                        + "\",\"name\":\"late\","
                        + "\"spec\":{},\"body\":{\"text\":\"recovered words\"},\"placements\":[{\"scope\":\"" + topic
                        + "\",\"type\":\"instance\"}],\"created_at\":\"" + ts + "\",\"last_updated\":\"" + ts + "\"},"
                        + "\"decl\":{\"id\":\"" + ids.next().value() + "\",\"index\":0,\"count\":1}}");
                c.append(List.of(new EventDraft(
                        ids.next().value(),
                        ts,
                        "main",
                        "agent",
                        null,
                        null,
                        null,
                        ".slices/" + chunk + ".slice",
                        "declare",
                        null,
                        null,
                        null,
                        payload,
                        "late",
                        List.of(),
                        null,
                        null)));
                c.sync();
            }

            root.serve();
            assertTrue(root.file(".slices/" + chunk + ".slice").contains("recovered words"));
            JsonNode s = root.call("scope", "{\"scopes\":[\"topic\"]}").get("result");
            assertEquals(chunk, s.get("chunks").get(0).get("id").asText(), s.toString());
            assertEquals(
                    1,
                    root.call("search", "{\"q\":\"recovered\"}")
                            .get("result")
                            .get("hits")
                            .size());
            JsonNode v = root.call("ledger.verify", null).get("result");
            assertTrue(v.get("ok").asBoolean(), v.toString());
            assertFalse(
                    root.call("declare", "{\"chunks\":[{\"name\":\"late\",\"placements\":[{\"scope\":\"topic\"}]}]}")
                            .has("result"),
                    "the recovered chunk's name is taken in the writer's graph too");
        }
    }
}
