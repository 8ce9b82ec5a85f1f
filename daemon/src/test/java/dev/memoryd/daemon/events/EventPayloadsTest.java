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
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AD\",\"index\":0,\"count\":1}}");

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
    void aReplicasFork_namesBothItsRecordedCommitAndItsReplica() {
        assertThrows(IllegalArgumentException.class, () -> new ForkPayload(null, "main", "c", "r", null, null));
        assertThrows(IllegalArgumentException.class, () -> new Decl("d", 1, 1));
    }
}
