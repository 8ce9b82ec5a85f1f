package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.grammar.GrammarEdit;
import dev.memoryd.grammar.SectionKind;
import dev.memoryd.grammar.slip.SlipJson;
import dev.memoryd.grammar.slip.SlipJsonParse;
import dev.memoryd.grammar.substrate.ChunkFile;
import dev.memoryd.ledger.Event;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one parser of ledger payloads into typed records, one per op. A payload is read as recorded,
 * so one that does not have its op's shape (written by another version, or tampered with) is
 * empty here rather than an exception; {@code ledger verify} is what judges the lines. Each op
 * has two parsers: one of an {@link Event} (empty when the event has another op) and one of a
 * payload alone, for the payloads a mutation drafts before they are lines. Stateless. A little
 * over 400 lines: one short parser per op, kept in one class so that every shape memoryd reads
 * back is read, and judged, in one place.
 */
public final class EventPayloads {
    private EventPayloads() {}

    /** {@code e}'s payload when {@code e} is a {@code branch_fork} of the expected shape. */
    public static Optional<ForkPayload> fork(Event e) {
        if (!ForkPayload.OP.equals(e.op()) || e.payload() == null) {
            return Optional.empty();
        }
        return fork(e.payload());
    }

    /** A {@code branch_fork} payload; empty when it lacks {@code fork.from} or {@code fork.from_commit}. */
    public static Optional<ForkPayload> fork(JsonNode p) {
        JsonNode f = p.path("fork");
        if (!f.path("from").isTextual() || !f.path("from_commit").isTextual()) {
            return Optional.empty();
        }
        JsonNode l = p.get("link");
        ForkPayload.Link link = l != null && l.isObject()
                ? new ForkPayload.Link(
                        l.path("branch").asText(),
                        l.path("seq").asLong(),
                        l.path("line_hash").asText())
                : null;
        String recorded =
                f.path("recorded_commit").isTextual() ? f.get("recorded_commit").asText() : null;
        String replica = f.path("replica").isTextual() ? f.get("replica").asText() : null;
        try {
            return Optional.of(new ForkPayload(
                    link, f.get("from").asText(), f.get("from_commit").asText(), recorded, replica, Decl.of(p)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** {@code e}'s payload when {@code e} is a {@code declare} of the expected shape. */
    public static Optional<DeclarePayload> declare(Event e) {
        if (!DeclarePayload.OP.equals(e.op()) || e.payload() == null) {
            return Optional.empty();
        }
        return declare(e.payload());
    }

    /** A {@code declare} payload: {@code chunk} (a chunk's record) or {@code removed} with {@code removed_at}. */
    public static Optional<DeclarePayload> declare(JsonNode p) {
        Decl decl = Decl.of(p);
        JsonNode provenance = p.get("provenance");
        if (p.path("removed").isTextual() && p.path("removed_at").isTextual()) {
            return Optional.of(new DeclarePayload.Removed(
                    p.get("removed").asText(), p.get("removed_at").asText(), decl, provenance));
        }
        if (p.path("chunk").isObject()) {
            // A chunk memoryd recorded that does not parse is a fault, not a shape to skip: it throws.
            return Optional.of(new DeclarePayload.Put(ChunkFile.fromJson(p.get("chunk")), decl, provenance));
        }
        return Optional.empty();
    }

    /** {@code e}'s {@code decl}: which declaration it belongs to; empty when it records none of that shape. */
    public static Optional<Decl> decl(Event e) {
        return e.payload() == null ? Optional.empty() : Optional.ofNullable(Decl.of(e.payload()));
    }

    /** {@code e}'s payload when {@code e} is a {@code key_rotate} of the expected shape. */
    public static Optional<KeyRotatePayload> keyRotate(Event e) {
        return ofOp(e, KeyRotatePayload.OP, EventPayloads::keyRotate);
    }

    /** A {@code key_rotate} payload: {@code retired} and {@code current}, key versions. */
    public static Optional<KeyRotatePayload> keyRotate(JsonNode p) {
        if (!isInt(p.path("retired")) || !isInt(p.path("current"))) {
            return Optional.empty();
        }
        return Optional.of(
                new KeyRotatePayload(p.get("retired").asInt(), p.get("current").asInt()));
    }

    /** {@code e}'s payload when {@code e} is a {@code section_lock} of the expected shape. */
    public static Optional<SectionLockPayload> sectionLock(Event e) {
        return ofOp(e, SectionLockPayload.OP, EventPayloads::sectionLock);
    }

    /** A {@code section_lock} payload: {@code section} and {@code locked}. */
    public static Optional<SectionLockPayload> sectionLock(JsonNode p) {
        if (!p.path("section").isTextual() || !p.path("locked").isBoolean()) {
            return Optional.empty();
        }
        return Optional.of(new SectionLockPayload(
                p.get("section").asText(), p.get("locked").asBoolean()));
    }

    /** {@code e}'s payload when {@code e} is a {@code slip_send} of the expected shape. */
    public static Optional<SlipSendPayload> slipSend(Event e) {
        return ofOp(e, SlipSendPayload.OP, EventPayloads::slipSend);
    }

    /** A {@code slip_send} payload: {@code message}, a SLIP message's JSON form. */
    public static Optional<SlipSendPayload> slipSend(JsonNode p) {
        JsonNode m = p.get("message");
        if (m == null || !(SlipJson.parse(m) instanceof SlipJsonParse.Ok ok)) {
            return Optional.empty();
        }
        return Optional.of(new SlipSendPayload(ok.message()));
    }

    /** {@code e}'s payload when {@code e} is a {@code slip_deliver} of the expected shape. */
    public static Optional<SlipDeliverPayload> slipDeliver(Event e) {
        return ofOp(e, SlipDeliverPayload.OP, EventPayloads::slipDeliver);
    }

    /** A {@code slip_deliver} payload: {@code agent} and {@code event_ids}, an array of ids. */
    public static Optional<SlipDeliverPayload> slipDeliver(JsonNode p) {
        JsonNode agent = p.path("agent");
        List<String> ids = texts(p.path("event_ids"));
        if (!agent.isIntegralNumber() || !agent.canConvertToLong() || ids == null) {
            return Optional.empty();
        }
        return Optional.of(new SlipDeliverPayload(agent.asLong(), ids));
    }

    /** {@code e}'s payload when {@code e} is a {@code drift_flagged} of the expected shape. */
    public static Optional<DriftFlaggedPayload> driftFlagged(Event e) {
        return ofOp(e, DriftFlaggedPayload.OP, EventPayloads::driftFlagged);
    }

    /**
     * A {@code drift_flagged} payload: {@code drift} with {@code id}, {@code kind}, {@code reason}
     * and {@code text} (a text or null), {@code drift.problems} and {@code human} as recorded.
     */
    public static Optional<DriftFlaggedPayload> driftFlagged(JsonNode p) {
        JsonNode d = p.path("drift");
        JsonNode text = d.path("text");
        if (!d.path("id").isTextual()
                || !d.path("kind").isTextual()
                || !d.path("reason").isTextual()
                || !(text.isTextual() || text.isNull())) {
            return Optional.empty();
        }
        return Optional.of(new DriftFlaggedPayload(
                d.get("id").asText(),
                d.get("kind").asText(),
                d.get("reason").asText(),
                text.isNull() ? null : text.asText(),
                d.path("problems"),
                p.path("human")));
    }

    /** {@code e}'s payload when {@code e} is a {@code drift_resolved} of the expected shape. */
    public static Optional<DriftResolvedPayload> driftResolved(Event e) {
        return ofOp(e, DriftResolvedPayload.OP, EventPayloads::driftResolved);
    }

    /** A {@code drift_resolved} payload: {@code drift} with {@code id}, {@code resolution}, optional {@code note} and {@code text_sha256}. */
    public static Optional<DriftResolvedPayload> driftResolved(JsonNode p) {
        JsonNode d = p.path("drift");
        if (!d.path("id").isTextual() || !d.path("resolution").isTextual()) {
            return Optional.empty();
        }
        return Optional.of(new DriftResolvedPayload(
                d.get("id").asText(), d.get("resolution").asText(), text(d, "note"), text(d, "text_sha256")));
    }

    /** {@code e}'s payload when {@code e} is a {@code human_edit} of the expected shape. */
    public static Optional<HumanEditPayload> humanEdit(Event e) {
        return ofOp(e, HumanEditPayload.OP, EventPayloads::humanEdit);
    }

    /**
     * A {@code human_edit} payload: {@code whole_file} true with {@code text} and {@code changed}
     * (region keys), else {@code region}, {@code index} and {@code text}.
     */
    public static Optional<HumanEditPayload> humanEdit(JsonNode p) {
        if (!p.path("text").isTextual()) {
            return Optional.empty();
        }
        String text = p.get("text").asText();
        if (p.path("whole_file").asBoolean(false)) {
            List<String> changed = texts(p.path("changed"));
            return changed == null ? Optional.empty() : Optional.of(new HumanEditPayload.WholeFile(text, changed));
        }
        if (!p.path("region").isTextual() || !isInt(p.path("index"))) {
            return Optional.empty();
        }
        return Optional.of(new HumanEditPayload.Region(
                p.get("region").asText(), p.get("index").asInt(), text));
    }

    /** {@code e}'s payload when {@code e} is a {@code proposal_created} of the expected shape. */
    public static Optional<ProposalCreatedPayload> proposalCreated(Event e) {
        return ofOp(e, ProposalCreatedPayload.OP, EventPayloads::proposalCreated);
    }

    /** A {@code proposal_created} payload: {@code proposal} with {@code id}, {@code branch}, {@code commit}, {@code ops} and {@code base}. */
    public static Optional<ProposalCreatedPayload> proposalCreated(JsonNode p) {
        JsonNode pr = p.path("proposal");
        if (!pr.path("id").isTextual()
                || !pr.path("branch").isTextual()
                || !pr.path("commit").isTextual()) {
            return Optional.empty();
        }
        return Optional.of(new ProposalCreatedPayload(
                pr.get("id").asText(),
                pr.get("branch").asText(),
                pr.get("commit").asText(),
                pr.path("ops"),
                pr.path("base")));
    }

    /** {@code e}'s payload when {@code e} is a {@code proposal_accepted} or {@code proposal_rejected} of the expected shape. */
    public static Optional<ProposalClosedPayload> proposalClosed(Event e) {
        return ProposalClosedPayload.OP_ACCEPTED.equals(e.op())
                ? ofOp(e, ProposalClosedPayload.OP_ACCEPTED, EventPayloads::proposalClosed)
                : ofOp(e, ProposalClosedPayload.OP_REJECTED, EventPayloads::proposalClosed);
    }

    /** A {@code proposal_accepted} or {@code proposal_rejected} payload: {@code proposal} with {@code id}, optional {@code note}. */
    public static Optional<ProposalClosedPayload> proposalClosed(JsonNode p) {
        JsonNode pr = p.path("proposal");
        if (!pr.path("id").isTextual()) {
            return Optional.empty();
        }
        return Optional.of(new ProposalClosedPayload(pr.get("id").asText(), text(pr, "note")));
    }

    /** {@code e}'s payload when {@code e} is a {@code grammar_change} of the expected shape. */
    public static Optional<GrammarChangePayload> grammarChange(Event e) {
        return ofOp(e, GrammarChangePayload.OP, EventPayloads::grammarChange);
    }

    /**
     * A {@code grammar_change} payload: {@code change} with {@code kind} ({@code promote},
     * {@code reject}, {@code set_cap}, {@code set_kind}), {@code file_type} and the kind's fields.
     */
    public static Optional<GrammarChangePayload> grammarChange(JsonNode p) {
        JsonNode c = p.path("change");
        String type = text(c, "file_type");
        if (type == null) {
            return Optional.empty();
        }
        try {
            GrammarEdit.Change change = switch (c.path("kind").asText()) {
                case "promote" -> new GrammarEdit.Promote(type, text(c, "heading"), sectionKind(c));
                case "reject" -> new GrammarEdit.Reject(type, text(c, "heading"));
                case "set_cap" ->
                    isInt(c.path("value"))
                            ? new GrammarEdit.SetCap(
                                    type,
                                    text(c, "section"),
                                    text(c, "cap"),
                                    c.get("value").asInt())
                            : null;
                case "set_kind" -> new GrammarEdit.SetKind(type, text(c, "section"), sectionKind(c));
                default -> null;
            };
            return Optional.ofNullable(change).map(GrammarChangePayload::new);
        } catch (IllegalArgumentException | NullPointerException e) {
            return Optional.empty(); // a field missing, or not one of its kind's values
        }
    }

    /** {@code e}'s payload when {@code e} is a {@code ref_add}, {@code ref_repin} or {@code ref_retire} of the expected shape. */
    public static Optional<RefPayload> ref(Event e) {
        if (!RefPayload.OP_ADD.equals(e.op())
                && !RefPayload.OP_REPIN.equals(e.op())
                && !RefPayload.OP_RETIRE.equals(e.op())) {
            return Optional.empty();
        }
        return e.payload() == null ? Optional.empty() : ref(e.payload());
    }

    /** A file reference's payload: {@code slice}, the pointer file's frontmatter. */
    public static Optional<RefPayload> ref(JsonNode p) {
        return p.get("slice") instanceof ObjectNode slice ? Optional.of(new RefPayload(slice)) : Optional.empty();
    }

    /** {@code e}'s grammar op, whatever the event's op: empty when its payload records no {@code op} object. */
    public static Optional<GrammarOpPayload> grammarOp(Event e) {
        return e.payload() == null ? Optional.empty() : grammarOp(e.payload());
    }

    /** A payload's grammar op: {@code op}, an object, and whether {@code line_ends} is {@code "crlf"}. */
    public static Optional<GrammarOpPayload> grammarOp(JsonNode p) {
        return p.get("op") instanceof ObjectNode op
                ? Optional.of(new GrammarOpPayload(
                        op,
                        GrammarOpPayload.CRLF.equals(
                                p.path(GrammarOpPayload.LINE_ENDS).asText(null))))
                : Optional.empty();
    }

    /** {@code e}'s payload when {@code e} is a {@code branch_merge} of the expected shape. */
    public static Optional<BranchMergePayload> branchMerge(Event e) {
        return ofOp(e, BranchMergePayload.OP, EventPayloads::branchMerge);
    }

    /**
     * A {@code branch_merge} payload: {@code merge.from}, {@code merge.from_commit}, {@code files}
     * (path to text or null) and {@code changed} (path to region keys; absent in older merges).
     */
    public static Optional<BranchMergePayload> branchMerge(JsonNode p) {
        JsonNode fs = p.path("files");
        JsonNode mg = p.path("merge");
        if (!mg.path("from").isTextual() || !mg.path("from_commit").isTextual() || !fs.isObject()) {
            return Optional.empty();
        }
        Map<String, String> files = new LinkedHashMap<>();
        for (var it = fs.fields(); it.hasNext(); ) {
            var f = it.next();
            if (!f.getValue().isTextual() && !f.getValue().isNull()) {
                return Optional.empty();
            }
            files.put(f.getKey(), f.getValue().isNull() ? null : f.getValue().asText());
        }
        Map<String, List<String>> changed = new LinkedHashMap<>();
        for (var it = p.path("changed").fields(); it.hasNext(); ) {
            var f = it.next();
            if (!f.getValue().isArray()) {
                return Optional.empty();
            }
            List<String> keys = new java.util.ArrayList<>();
            for (JsonNode k : f.getValue()) {
                if (!k.isTextual()) {
                    return Optional.empty();
                }
                keys.add(k.asText());
            }
            changed.put(f.getKey(), keys);
        }
        return Optional.of(new BranchMergePayload(
                mg.get("from").asText(), mg.get("from_commit").asText(), files, changed));
    }

    /** {@code e}'s payload when {@code e} is a {@code slice_create} of the expected shape. */
    public static Optional<SliceCreatePayload> sliceCreate(Event e) {
        return ofOp(e, SliceCreatePayload.OP, EventPayloads::sliceCreate);
    }

    /** A {@code slice_create} payload: {@code slice}, an object, and {@code body}, a text (empty when absent). */
    public static Optional<SliceCreatePayload> sliceCreate(JsonNode p) {
        JsonNode body = p.path("body");
        if (!(p.get("slice") instanceof ObjectNode slice) || !(body.isTextual() || body.isMissingNode())) {
            return Optional.empty();
        }
        return Optional.of(new SliceCreatePayload(slice, body.asText("")));
    }

    /** {@code e}'s payload when {@code e} is an {@code append_row} of the expected shape. */
    public static Optional<AppendRowPayload> appendRow(Event e) {
        return ofOp(e, AppendRowPayload.OP, EventPayloads::appendRow);
    }

    /** An {@code append_row} payload: {@code slice_id} and {@code row}. */
    public static Optional<AppendRowPayload> appendRow(JsonNode p) {
        if (!p.path("slice_id").isTextual() || !p.has("row")) {
            return Optional.empty();
        }
        return Optional.of(new AppendRowPayload(p.get("slice_id").asText(), p.get("row")));
    }

    /** {@code e}'s payload when {@code e} is a {@code conversation_append} of the expected shape. */
    public static Optional<ConversationAppendPayload> conversationAppend(Event e) {
        return ofOp(e, ConversationAppendPayload.OP, EventPayloads::conversationAppend);
    }

    /**
     * A {@code conversation_append} payload: {@code session_id}, {@code slice_id}, {@code new_slice}
     * (false when absent) and {@code turns}, an array.
     */
    public static Optional<ConversationAppendPayload> conversationAppend(JsonNode p) {
        if (!p.path("session_id").isTextual()
                || !p.path("slice_id").isTextual()
                || !(p.get("turns") instanceof ArrayNode turns)) {
            return Optional.empty();
        }
        return Optional.of(new ConversationAppendPayload(
                p.get("session_id").asText(),
                p.get("slice_id").asText(),
                p.path("new_slice").asBoolean(),
                turns));
    }

    private static <T> Optional<T> ofOp(Event e, String op, Function<JsonNode, Optional<T>> parser) {
        return op.equals(e.op()) && e.payload() != null ? parser.apply(e.payload()) : Optional.empty();
    }

    private static boolean isInt(JsonNode n) {
        return n.isIntegralNumber() && n.canConvertToInt();
    }

    private static String text(JsonNode o, String field) {
        JsonNode n = o.path(field);
        return n.isTextual() ? n.asText() : null;
    }

    /** The texts of array {@code a}; null when it is not an array of texts. */
    private static List<String> texts(JsonNode a) {
        if (!a.isArray()) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (JsonNode n : a) {
            if (!n.isTextual()) {
                return null;
            }
            out.add(n.asText());
        }
        return out;
    }

    private static SectionKind sectionKind(JsonNode c) {
        return SectionKind.valueOf(c.path("section_kind").asText().toUpperCase(Locale.ROOT));
    }
}
