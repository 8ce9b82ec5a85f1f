package dev.memoryd.ledger;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Deterministic keys, ids and drafts for tests. */
final class Fixtures {
    static final Instant T0 = Instant.parse("2025-01-02T03:04:05Z");

    private Fixtures() {}

    static byte[] master(int seed) {
        byte[] m = new byte[32];
        for (int i = 0; i < 32; i++) {
            m[i] = (byte) (seed * 31 + i);
        }
        return m;
    }

    static KeyRing keys() {
        return KeyRing.of(Map.of(1, master(1)), 1);
    }

    static KeyRing otherKeys() {
        return KeyRing.of(Map.of(1, master(2)), 1);
    }

    static IdGenerator ids(long seed) {
        return new IdGenerator(Clock.fixed(T0, ZoneOffset.UTC), new Random(seed));
    }

    static LedgerOptions options(int segmentLines, long seed) {
        return new LedgerOptions(segmentLines, ids(seed));
    }

    static Ledger open(Path dir, int segmentLines) {
        return Ledger.open(dir, keys(), options(segmentLines, 7));
    }

    /** {@code d} with {@code payload} in place of its own. */
    static EventDraft withPayload(EventDraft d, com.fasterxml.jackson.databind.JsonNode payload) {
        return with(d, d.op(), payload);
    }

    /** {@code d} with {@code op} and {@code payload} in place of its own. */
    static EventDraft with(EventDraft d, String op, com.fasterxml.jackson.databind.JsonNode payload) {
        return new EventDraft(
                d.eventId(),
                d.ts(),
                d.branch(),
                d.actor(),
                d.userId(),
                d.entityType(),
                d.entityId(),
                d.filePath(),
                op,
                d.sectionAnchor(),
                d.beforeHash(),
                d.afterHash(),
                payload,
                d.rationale(),
                d.evidenceRefs(),
                d.idempotencyKey(),
                d.toolCallId());
    }

    /** A draft of roughly 600 bytes once stored. */
    static EventDraft draft(IdGenerator ids, String branch, int i) {
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        payload.put("op", "append_item");
        payload.put("path", "users/alice/parts/p" + (i % 7) + "/profile.md");
        payload.put("section", "triggers");
        payload.put("item", "Item number " + i + " — noticed when the deadline moved; \"quoted\" text ✓");
        payload.put("weight", i * 0.25);
        return new EventDraft(
                ids.next().value(),
                "2025-01-02T03:04:05.123Z",
                branch,
                "agent:test",
                "alice",
                "part",
                "p" + (i % 7),
                "users/alice/parts/p" + (i % 7) + "/profile.md",
                "append_item",
                "triggers",
                "a".repeat(64),
                "b".repeat(64),
                payload,
                "because test " + i,
                List.of("ev:20250102T030405Z-" + ids.next().value()),
                "idem-" + i,
                null);
    }

    static List<EventDraft> drafts(IdGenerator ids, String branch, int from, int count) {
        List<EventDraft> out = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            out.add(draft(ids, branch, i));
        }
        return out;
    }

    /** Opens a ledger at {@code dir}, appends {@code count} lines to {@code branch}, syncs and closes. */
    static Ledger write(Path dir, String branch, int count, int segmentLines) {
        Ledger l = open(dir, segmentLines);
        IdGenerator ids = ids(99);
        Chain c = l.chain(BranchName.of(branch));
        for (int i = 0; i < count; i += 50) {
            c.append(drafts(ids, branch, i, Math.min(50, count - i)));
        }
        c.sync();
        l.close();
        return l;
    }
}
