package dev.memoryd.daemon.conversation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.events.ConversationAppendPayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.policy.ContextSelector;
import dev.memoryd.grammar.policy.ConversationDag;
import dev.memoryd.grammar.policy.ParentRef;
import dev.memoryd.grammar.policy.PolicyConfig;
import dev.memoryd.grammar.policy.Turn;
import dev.memoryd.jcs.CanonicalValue;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.IdGenerator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Stored conversations for SlicePolicy context selection. Each session is one Slices v1 file
 * {@code .slices/<ULID>.slice} with body type {@code conversation}, one turn per line (the
 * SliceExport turn fields plus {@code parents}); each append is a {@code conversation_append}
 * event and a commit. The turn DAG across all sessions is a fold over those events, rebuilt from
 * the ledger at start, so {@code context} never reads files.
 *
 * <p>Appends are serialised (one in flight at a time) so that the uniqueness of turn ids and the
 * existence of parents are checked against everything recorded before. Thread-safe.
 */
public final class ConversationStore extends dev.memoryd.daemon.write.LedgerFold {
    public static final String OP = ConversationAppendPayload.OP;
    static final Pattern SESSION = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private final WritePipeline writer;
    private final IdGenerator ids;
    private final ReentrantLock appends = new ReentrantLock();
    private final Map<String, String> sliceBySession = new HashMap<>();
    private final Map<String, Turn> turns = new LinkedHashMap<>();
    private ConversationDag dag;
    /**
     * The append being written, whose event {@link #fold} recognises by its first turn's canonical
     * value (the very instance, which the event's payload carries) and takes the parsed turns of
     * instead of parsing them again. Guarded by this object's monitor.
     */
    private Append inFlight;

    public ConversationStore(WritePipeline writer, IdGenerator ids) {
        this.writer = writer;
        this.ids = ids;
        writer.addListener(this);
        writer.registerReplayer(OP, evs -> {
            ConversationAppendPayload p = EventPayloads.conversationAppend(evs.get(0))
                    .orElseThrow(() -> new IllegalStateException("ledger line "
                            + evs.get(0).seq() + " is a conversation append without its session or turns"));
            return Append.of(p.sessionId(), p.sliceId(), p.newSlice(), parseStored(p.turns()), null);
        });
    }

    @Override
    protected void fold(Event e) {
        Optional<ConversationAppendPayload> append = EventPayloads.conversationAppend(e);
        if (append.isPresent()) {
            ConversationAppendPayload p = append.get();
            sliceBySession.put(p.sessionId(), p.sliceId());
            JsonNode stored = p.turns();
            Append mine = inFlight;
            boolean ours = mine != null
                    && stored.size() == mine.turns().size()
                    && CanonicalValue.in(stored.get(0)) == mine.lines().get(0);
            for (Turn t : ours ? mine.turns() : parseStored(stored)) {
                turns.put(t.id(), t);
            }
            dag = null;
        }
    }

    /**
     * Records turns of one session (parsed at the protocol's edge, each turn's {@code session_id}
     * defaulting to {@code sessionId}). Returns a refusal for bad input (nothing recorded) or the
     * committed outcome.
     */
    public WriteOutcome append(String sessionId, List<Turn> turns, String actor)
            throws InterruptedException, ExecutionException {
        return append(sessionId, turns, actor, null);
    }

    /** As {@link #append(String, List, String)}, recording {@code provenance} (null: none) in its event. */
    public WriteOutcome append(
            String sessionId, List<Turn> turns, String actor, dev.memoryd.daemon.write.Provenance provenance)
            throws InterruptedException, ExecutionException {
        Optional<Failure> badSession = checkSession(sessionId);
        if (badSession.isPresent()) {
            return new WriteOutcome.Rejected(-1, badSession.get());
        }
        if (turns == null || turns.isEmpty()) {
            return refuse(ErrorReason.INVALID_REQUEST, "turns must be a non-empty array");
        }
        List<Turn> parsed = List.copyOf(turns);
        for (int i = 0; i < parsed.size(); i++) {
            Optional<Failure> other = checkTurn(sessionId, i, parsed.get(i));
            if (other.isPresent()) {
                return new WriteOutcome.Rejected(-1, other.get());
            }
        }
        appends.lockInterruptibly();
        try {
            String sliceId;
            boolean fresh;
            synchronized (this) {
                sliceId = sliceBySession.get(sessionId);
                fresh = sliceId == null;
                if (fresh) {
                    sliceId = ids.next().value();
                }
            }
            // The recorded turns are looked up live, not copied: appends are one at a time and the fold
            // runs on the writer before this future completes, so nothing else changes them meanwhile.
            Append a = Append.of(sessionId, sliceId, fresh, parsed, this::recorded);
            synchronized (this) {
                inFlight = a;
            }
            return writer.submit(WriteRequest.of(a, null, actor).withProvenance(provenance))
                    .get();
        } finally {
            synchronized (this) {
                inFlight = null;
            }
            appends.unlock();
        }
    }

    /** {@code invalid_request} when {@code sessionId} is not a session id; a request's first check. */
    public static Optional<Failure> checkSession(String sessionId) {
        return sessionId == null || !SESSION.matcher(sessionId).matches()
                ? Optional.of(Failure.of(ErrorReason.INVALID_REQUEST, "session_id must match " + SESSION.pattern()))
                : Optional.empty();
    }

    /** {@code invalid_request} when turn {@code i} of a request is of another session than {@code sessionId}. */
    public static Optional<Failure> checkTurn(String sessionId, int i, Turn turn) {
        return turn.sessionId().equals(sessionId)
                ? Optional.empty()
                : Optional.of(Failure.of(
                        ErrorReason.INVALID_REQUEST,
                        "turns[" + i + "].session_id is '" + turn.sessionId()
                                + "', not the session_id of the request"));
    }

    private synchronized boolean recorded(String turnId) {
        return turns.containsKey(turnId);
    }

    private static WriteOutcome refuse(ErrorReason r, String msg) {
        return new WriteOutcome.Rejected(-1, Failure.of(r, msg));
    }

    /**
     * The SliceExport of SlicePolicy v1 for an anchor turn.
     *
     * @throws dev.memoryd.grammar.policy.PolicyInputException when the anchor is no stored turn
     */
    public ContextSlice context(String anchorTurnId, PolicyConfig config) {
        ConversationDag d;
        synchronized (this) {
            if (dag == null) {
                dag = ConversationDag.of(turns.values());
            }
            d = dag;
        }
        return ContextSlice.local(ContextSelector.export(d, anchorTurnId, config));
    }

    static List<Turn> parseStored(JsonNode arr) {
        List<Turn> out = new ArrayList<>();
        for (int i = 0; i < arr.size(); i++) {
            out.add(Turn.fromJson(CanonicalValue.unwrap(arr.get(i)), "turns[" + i + "]"));
        }
        return out;
    }

    static ObjectNode stored(Turn t) {
        ObjectNode n = t.toExportJson();
        ArrayNode ps = n.putArray("parents");
        for (ParentRef p : t.parents()) {
            ps.addObject().put("id", p.id()).put("edge_type", p.edgeType().wire());
        }
        return n;
    }

    static RepoPath pathOf(String sliceId) {
        return RepoPath.of(".slices/" + sliceId + ".slice");
    }

    /**
     * Appends turns to a session's file. {@code known} (whether a turn id is recorded) is null when
     * recovery redoes a recorded append, which was checked when it was first made. {@code lines}
     * are the turns' stored JSON ({@link #stored}) canonicalised once: each is both the turn's line
     * in the file and its element of the event's {@code turns}, which the ledger line then holds
     * byte for byte as JCS of the payload would write it.
     */
    record Append(
            String sessionId,
            String sliceId,
            boolean fresh,
            List<Turn> turns,
            List<CanonicalValue> lines,
            Predicate<String> known)
            implements Mutation {
        Append {
            turns = List.copyOf(turns);
            lines = List.copyOf(lines);
            if (lines.size() != turns.size()) {
                throw new IllegalArgumentException("one line per turn");
            }
        }

        static Append of(String sessionId, String sliceId, boolean fresh, List<Turn> turns, Predicate<String> known) {
            List<CanonicalValue> lines = new ArrayList<>(turns.size());
            for (Turn t : turns) {
                lines.add(CanonicalValue.of(stored(t)));
            }
            return new Append(sessionId, sliceId, fresh, turns, lines, known);
        }

        @Override
        public Result apply(FileSource files, Instant now) {
            RepoPath path = pathOf(sliceId);
            Optional<String> old = files.read(path);
            if (known != null) {
                Set<String> seen = new HashSet<>();
                for (int i = 0; i < turns.size(); i++) {
                    Turn t = turns.get(i);
                    if (known.test(t.id()) || !seen.add(t.id())) {
                        return new Refused(
                                i,
                                new Failure(
                                        ErrorReason.CONFLICT,
                                        "turns[" + i + "].id " + t.id() + " is already recorded",
                                        Map.of("turn_id", t.id())));
                    }
                    for (int k = 0; k < t.parents().size(); k++) {
                        String pid = t.parents().get(k).id();
                        if (!known.test(pid) && !seen.contains(pid)) {
                            return new Refused(
                                    i,
                                    new Failure(
                                            ErrorReason.NOT_FOUND,
                                            "turns[" + i + "].parents[" + k + "].id " + pid
                                                    + " is not a recorded turn (parents come first)",
                                            Map.of("turn_id", pid)));
                        }
                    }
                }
                if (fresh == old.isPresent()) {
                    return new Refused(
                            -1,
                            Failure.of(
                                    ErrorReason.CONFLICT,
                                    "the conversation file " + path.value()
                                            + (fresh ? " already exists" : " is missing")));
                }
            }
            String before = old.orElseGet(() -> header(now));
            int size = before.length();
            for (CanonicalValue l : lines) {
                size += l.text().length() + 1;
            }
            StringBuilder text = new StringBuilder(size).append(before);
            ArrayNode stored = JsonNodeFactory.instance.arrayNode(lines.size());
            for (CanonicalValue l : lines) {
                stored.add(l.asNode());
                text.append(l.text()).append('\n');
            }
            ObjectNode payload = JsonNodeFactory.instance.objectNode();
            payload.put("session_id", sessionId);
            payload.put("slice_id", sliceId);
            payload.put("new_slice", fresh);
            payload.set("turns", stored);
            return new Done(
                    Map.of(path, text.toString()),
                    List.of(new EventSpec(
                            OP,
                            path,
                            null,
                            null,
                            null,
                            payload,
                            List.of(),
                            "appended " + turns.size() + " turn(s) to conversation " + sessionId)),
                    true);
        }

        private String header(Instant now) {
            return "---\nslice:\n  v: \"1\"\n  id: " + sliceId + "\n  kind: context\n  title: \"Conversation "
                    + sessionId + "\"\n  summary: \"Turns of session " + sessionId
                    + ", one per line, recorded by memoryd.\"\n"
                    + "  body:\n    type: conversation\n    conversation:\n      session_id: \"" + sessionId
                    + "\"\n      format: messages\n  meta:\n    created_at: \"" + now + "\"\n---\n";
        }
    }
}
