package dev.memoryd.daemon.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.jcs.Jcs;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Typed payloads re-serialise to the canonical bytes of the payloads they were read from: the
 * ledger's HMAC chain and replay depend on those bytes, so every shape memoryd has written is here.
 */
class EventPayloadsTest {
    private static final ObjectMapper M = new ObjectMapper();

    /** Every shape of {@code branch_fork} payload, as the ledger holds them. */
    static final List<String> FORKS = List.of(
            // branch.create from a commit that records a ledger head
            "{\"link\":{\"branch\":\"main\",\"seq\":7,\"line_hash\":\"9f2c\"},"
                    + "\"fork\":{\"from\":\"main\",\"from_commit\":\"0123456789abcdef0123456789abcdef01234567\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AB\",\"index\":0,\"count\":1}}",
            // branch.create from a commit that records none
            "{\"fork\":{\"from\":\"0123abcd\",\"from_commit\":\"0123abcd89abcdef0123456789abcdef01234567\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AC\",\"index\":0,\"count\":1}}",
            // a replica's first line of its chain of a branch
            "{\"link\":{\"branch\":\"main@a\",\"seq\":12,\"line_hash\":\"77aa\"},"
                    + "\"fork\":{\"from\":\"main\",\"from_commit\":\"1111111111111111111111111111111111111111\","
                    + "\"recorded_commit\":\"2222222222222222222222222222222222222222\",\"replica\":\"b\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AD\",\"index\":0,\"count\":1}}",
            // a replica's fork that names the replica but not the commit the linked line recorded
            "{\"link\":{\"branch\":\"main\",\"seq\":3,\"line_hash\":\"5e5e\"},"
                    + "\"fork\":{\"from\":\"main\",\"from_commit\":\"3333333333333333333333333333333333333333\","
                    + "\"replica\":\"c\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AG\",\"index\":0,\"count\":1}}");

    /** Every shape of {@code declare} payload, as the ledger holds them. */
    static final List<String> DECLARES = List.of(
            // a named chunk with a spec, an ordered placement and a plain one, in a declaration of two
            "{\"chunk\":{\"id\":\"01JDZ00000000000000000000A\",\"name\":\"session\","
                    + "\"spec\":{\"ordered\":true,\"accepts\":[\"prompt\"],\"required\":[\"program\"],"
                    + "\"unique\":[\"name\"],\"propagate\":true},"
                    + "\"body\":{\"text\":\"A sequence\",\"n\":3,\"nested\":{\"a\":[1,2.5,null,true]}},"
                    + "\"placements\":[{\"scope\":\"01JDZ00000000000000000000B\",\"type\":\"instance\",\"seq\":1},"
                    + "{\"scope\":\"01JDZ00000000000000000000C\",\"type\":\"relates\"}],"
                    + "\"created_at\":\"2026-11-26T00:00:00Z\",\"last_updated\":\"2026-11-26T00:00:01Z\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AB\",\"index\":1,\"count\":2}}",
            // an unnamed chunk with no spec and no placements, recorded with the writer's provenance
            "{\"chunk\":{\"id\":\"01JDZ00000000000000000000D\",\"name\":null,\"spec\":{},\"body\":{},"
                    + "\"placements\":[],\"created_at\":\"2026-11-26T00:00:00Z\","
                    + "\"last_updated\":\"2026-11-26T00:00:00Z\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AE\",\"index\":0,\"count\":1},"
                    + "\"provenance\":{\"agent\":\"claude\",\"session\":\"s-1\",\"source\":\"mcp\"}}",
            // a removal
            "{\"removed\":\"01JDZ00000000000000000000A\",\"removed_at\":\"2026-11-26T00:00:02Z\","
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AF\",\"index\":0,\"count\":1}}");

    @Test
    void everyDeclareShape_reserialisesToTheSameCanonicalBytes() throws Exception {
        for (String line : DECLARES) {
            JsonNode recorded = M.readTree(line);
            DeclarePayload p = EventPayloads.declare(recorded).orElseThrow();
            assertEquals(Jcs.canonicalize(recorded), Jcs.canonicalize(p.toJson()), line);
        }
        assertTrue(EventPayloads.declare(M.readTree(DECLARES.get(2))).orElseThrow() instanceof DeclarePayload.Removed);
        // A chunk memoryd recorded that does not parse is a fault to hear of, not a shape to skip.
        assertThrows(
                RuntimeException.class, () -> EventPayloads.declare(M.readTree("{\"chunk\":{\"name\":\"no id\"}}")));
    }

    @Test
    void everyForkShape_reserialisesToTheSameCanonicalBytes() throws Exception {
        for (String line : FORKS) {
            JsonNode recorded = M.readTree(line);
            ForkPayload p = EventPayloads.fork(recorded).orElseThrow();
            assertEquals(Jcs.canonicalize(recorded), Jcs.canonicalize(p.toJson()), line);
        }
    }

    @Test
    void aForkPayload_readsItsLinkAndReplica() throws Exception {
        ForkPayload replica = EventPayloads.fork(M.readTree(FORKS.get(2))).orElseThrow();
        assertEquals(new ForkPayload.Link("main@a", 12, "77aa"), replica.link());
        assertEquals("2222222222222222222222222222222222222222", replica.recordedCommit());
        assertEquals("b", replica.replica());
        ForkPayload unlinked = EventPayloads.fork(M.readTree(FORKS.get(1))).orElseThrow();
        assertNull(unlinked.link());
        assertNull(unlinked.recordedCommit());
    }

    @Test
    void aPayloadWithoutItsForkFields_isNotAFork_ratherThanAnException() throws Exception {
        assertTrue(EventPayloads.fork(M.readTree("{\"link\":{\"branch\":\"main\"}}"))
                .isEmpty());
        assertTrue(EventPayloads.fork(M.readTree("{\"fork\":{\"from\":3}}")).isEmpty());
    }

    @Test
    void aDecl_isAnIndexWithinItsCount() {
        assertThrows(IllegalArgumentException.class, () -> new Decl("d", 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Decl("d", -1, 2));
        assertEquals(new Decl("d", 0, 1), Decl.single("d"));
    }
}
