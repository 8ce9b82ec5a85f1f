package dev.memoryd.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * An event before the ledger assigns {@code seq}, {@code chain} and {@code integrity}: the
 * caller fills every other field of {@link Event}. {@code eventId}, {@code ts} (ISO 8601 UTC
 * with {@code Z}) and {@code branch} are required; the rest may be null and is then written as
 * JSON null. {@code payload} is deep-copied; {@code evidenceRefs} is copied. Immutable value.
 */
public record EventDraft(
        String eventId,
        String ts,
        String branch,
        String actor,
        String userId,
        String entityType,
        String entityId,
        String filePath,
        String op,
        String sectionAnchor,
        String beforeHash,
        String afterHash,
        JsonNode payload,
        String rationale,
        List<String> evidenceRefs,
        String idempotencyKey,
        String toolCallId) {

    public EventDraft {
        new EventId(Objects.requireNonNull(eventId, "eventId"));
        Objects.requireNonNull(ts, "ts");
        new BranchName(Objects.requireNonNull(branch, "branch"));
        payload = payload == null || payload.isNull() ? null : payload.deepCopy();
        evidenceRefs = evidenceRefs == null ? null : List.copyOf(evidenceRefs);
    }
}
