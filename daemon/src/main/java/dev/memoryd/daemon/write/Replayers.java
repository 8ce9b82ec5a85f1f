package dev.memoryd.daemon.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.GrammarOpPayload;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpParse;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.ledger.Event;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How ledger events become mutations again, for recovery, replay and moving proposals onto the
 * latest state: grammar ops are built in, every other op is redone by the {@link Replayer} its
 * owner registered. Thread-safe: owners register while the daemon opens, the writer and replay
 * look up.
 */
final class Replayers {
    private final GrammarFiles grammars;
    private final SectionHasher hasher;
    private final Map<String, Replayer> byOp = new ConcurrentHashMap<>();

    Replayers(GrammarFiles grammars, SectionHasher hasher) {
        this.grammars = grammars;
        this.hasher = hasher;
    }

    /** Registers how to redo events whose op is {@code op}. */
    void register(String op, Replayer r) {
        byOp.put(op, r);
    }

    /** Whether events of {@code op} (not grammar ops) have a replayer. */
    boolean replays(String op) {
        return byOp.containsKey(op);
    }

    /**
     * The mutation that redoes one declaration's events {@code g}: grammar ops from the ops the
     * lines carry (their compare-and-swap hashes dropped), anything else through the replayer
     * registered for the first event's op. IllegalStateException when no one can redo them.
     */
    Mutation mutationFor(List<Event> g) {
        if (EventPayloads.grammarOp(g.get(0)).isPresent()) {
            List<Op> ops = new ArrayList<>();
            List<String> afterHashes = new ArrayList<>();
            Set<RepoPath> crlf = new HashSet<>();
            for (Event e : g) {
                Optional<GrammarOpPayload> op = EventPayloads.grammarOp(e);
                if (op.isEmpty()) {
                    continue; // e.g. a proposal's acceptance: its grammar events carry the ops
                }
                afterHashes.add(e.afterHash());
                if (op.get().crlf() && e.filePath() != null) {
                    crlf.add(RepoPath.of(e.filePath()));
                }
                // The compare-and-swap was decided when the line was written; hashes of an older key
                // would not match again after a rotation.
                ObjectNode opJson = op.get().op().deepCopy();
                opJson.remove("before_hash");
                OpParse parsed = OpCodec.parseRecorded(opJson);
                if (!(parsed instanceof OpParse.Ok ok)) {
                    throw new IllegalStateException("ledger line " + e.seq() + " holds an op replay cannot parse");
                }
                ops.add(ok.op());
            }
            return new GrammarMutation(grammars, ops, hasher, true, afterHashes, crlf);
        }
        Replayer r = byOp.get(g.get(0).op());
        if (r == null) {
            throw new IllegalStateException(
                    "ledger line " + g.get(0).seq() + " has op '" + g.get(0).op() + "' that this daemon cannot replay");
        }
        return r.fromEvents(g);
    }
}
