package dev.memoryd.daemon.write;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.events.GrammarOpPayload;
import dev.memoryd.grammar.ApplyResult;
import dev.memoryd.grammar.CreateEntity;
import dev.memoryd.grammar.Declarations;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpOutcome;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The memory-file ops of one declaration, under the grammar in force ({@link GrammarFiles}); each
 * op that changed something is one event.
 * {@code recordedAfterHashes} (replay only, one per op, else null) are the {@code after_hash}es
 * the ledger recorded: a {@code create_entity} recorded before the templates carried links
 * replays with {@code links: []} when that, and only that, gives the recorded hash.
 * {@code crlf} (replay only) are the files whose recorded lines say memoryd kept their CRLF line
 * ends ({@link GrammarOpPayload#crlf}): only those get CRLF lines again, so that lines recorded before memoryd
 * kept them replay to the text they made.
 */
record GrammarMutation(
        GrammarFiles grammars,
        List<Op> ops,
        SectionHasher hasher,
        boolean replay,
        List<String> recordedAfterHashes,
        Set<RepoPath> crlf)
        implements Mutation {
    GrammarMutation {
        crlf = Set.copyOf(crlf);
    }

    GrammarMutation(GrammarFiles grammars, List<Op> ops, SectionHasher hasher) {
        this(grammars, ops, hasher, false, null, Set.of());
    }

    @Override
    public Result apply(FileSource files, Instant now) {
        // The grammar in force where this declaration falls: a replayed event meets the grammar it was recorded under.
        Grammar grammar = grammars.inForce(files);
        ApplyResult r = replay ? replayed(grammar, files, now) : Declarations.apply(grammar, files, ops, now, hasher);
        if (r instanceof ApplyResult.Rejected rej) {
            return new Refused(
                    rej.opIndex(),
                    new Failure(ErrorReason.fromWire(rej.reason().wireName()), rej.message(), rej.details()));
        }
        ApplyResult.Applied a = (ApplyResult.Applied) r;
        List<EventSpec> events = new ArrayList<>();
        for (OpOutcome o : a.outcomes()) {
            if (!o.changed()) {
                continue;
            }
            ObjectNode payload = JsonNodeFactory.instance.objectNode();
            payload.set("op", OpCodec.toJson(o.op()));
            if (a.crlf().contains(o.path())) {
                payload.put(GrammarOpPayload.LINE_ENDS, GrammarOpPayload.CRLF);
            }
            events.add(new EventSpec(
                    o.op().opName(),
                    o.path(),
                    o.sectionAnchor(),
                    o.beforeHash(),
                    o.afterHash(),
                    payload,
                    o.op().evidenceRefs() == null ? List.of() : o.op().evidenceRefs(),
                    o.summary()));
        }
        return new Done(a.newContents(), events, a.changed());
    }

    private ApplyResult replayed(Grammar grammar, FileSource files, Instant now) {
        ApplyResult r = Declarations.replay(grammar, files, ops, now, hasher, Set.of(), crlf);
        if (recordedAfterHashes == null || !(r instanceof ApplyResult.Applied a)) {
            return r;
        }
        Set<Integer> differ = new HashSet<>();
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i) instanceof CreateEntity
                    && !Objects.equals(a.outcomes().get(i).afterHash(), recordedAfterHashes.get(i))) {
                differ.add(i);
            }
        }
        if (differ.isEmpty()) {
            return r;
        }
        ApplyResult old = Declarations.replay(grammar, files, ops, now, hasher, differ, crlf);
        if (old instanceof ApplyResult.Applied o
                && differ.stream()
                        .allMatch(i -> Objects.equals(o.outcomes().get(i).afterHash(), recordedAfterHashes.get(i)))) {
            return old;
        }
        return r;
    }
}
