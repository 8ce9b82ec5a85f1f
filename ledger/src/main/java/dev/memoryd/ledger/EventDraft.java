package dev.memoryd.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;

/**
 * An event before the ledger assigns {@code seq}, {@code chain} and {@code integrity}: the
 * caller fills every other field of {@link Event}. {@code eventId}, {@code ts} (ISO 8601 UTC
 * with {@code Z}) and {@code branch} are required; the rest may be null and is then written as
 * JSON null. {@code payload} is deep-copied; {@code evidenceRefs} is copied. Immutable value.
 *
 * <p>Every string (payload keys and values included) must have a UTF-8 form: a lone surrogate is
 * refused here, naming the field, so a draft that could not be written as a ledger line is turned
 * away before anything of it reaches the chain.
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
        String[][] fields = {
            {"actor", actor},
            {"user_id", userId},
            {"entity_type", entityType},
            {"entity_id", entityId},
            {"file_path", filePath},
            {"op", op},
            {"section_anchor", sectionAnchor},
            {"before_hash", beforeHash},
            {"after_hash", afterHash},
            {"rationale", rationale},
            {"idempotency_key", idempotencyKey},
            {"tool_call_id", toolCallId}
        };
        for (String[] f : fields) {
            requireEncodable(f[0], f[1]);
        }
        if (evidenceRefs != null) {
            for (int i = 0; i < evidenceRefs.size(); i++) {
                requireEncodable("evidence_refs[" + i + "]", evidenceRefs.get(i));
            }
        }
        if (payload != null) {
            requireEncodable("payload", payload);
        }
    }

    private static void requireEncodable(String field, JsonNode n) {
        if (n.isTextual()) {
            requireEncodable(field, n.textValue());
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                requireEncodable(field + "[" + i + "]", n.get(i));
            }
        } else if (n.isObject()) {
            for (java.util.Iterator<java.util.Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                java.util.Map.Entry<String, JsonNode> e = it.next();
                requireEncodable(field + " key", e.getKey());
                requireEncodable(field + "." + e.getKey(), e.getValue());
            }
        }
    }

    /** Refuses a string with a lone surrogate (it has no UTF-8 form, so no ledger line can hold it). */
    static void requireEncodable(String field, String s) {
        if (s == null) {
            return;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(field + " holds a lone surrogate (U+"
                        + Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT) + " at index " + i
                        + "), which has no UTF-8 form");
            }
        }
    }

    /** The event this draft becomes as line {@code seq} of chain {@code chain}, signed as {@code integrity}. */
    Event toEvent(long seq, String chain, Integrity integrity) {
        return new Event(
                seq,
                eventId,
                ts,
                branch,
                chain,
                actor,
                userId,
                entityType,
                entityId,
                filePath,
                op,
                sectionAnchor,
                beforeHash,
                afterHash,
                payload,
                rationale,
                evidenceRefs,
                idempotencyKey,
                toolCallId,
                integrity);
    }
}
