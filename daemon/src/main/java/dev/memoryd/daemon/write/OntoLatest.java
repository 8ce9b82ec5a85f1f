package dev.memoryd.daemon.write;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.GrammarOpPayload;
import dev.memoryd.daemon.events.HumanEditPayload;
import dev.memoryd.grammar.ApplyResult;
import dev.memoryd.grammar.Declarations;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.MemoryDocument;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpParse;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.grammar.human.HumanEdits;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * {@code replay --onto-latest} (file-grammar §10): brings memory files restored from a snapshot
 * (a backup) up to date by applying the ledger events newer than the snapshot. The snapshot's
 * place in history is the last point where replaying the ledger gave exactly its text, failing
 * that the last write that left its {@code last_updated}; with neither, the file halts. Each newer event must find its section by exact anchor with
 * the {@code before_hash} it recorded; a missing anchor gets at most one bounded re-anchor per
 * file ({@link HumanEdits#boundedReanchor}); anything else halts that file, which is then
 * flagged as drift with the snapshot's text. Runs on the writer thread, at rest.
 */
final class OntoLatest {
    /** What happened to one file. {@code outcome}: up_to_date, applied or halted. */
    record Result(RepoPath path, String outcome, int applied, String reanchored, String halt, String text) {}

    private final Grammar grammar;
    private final Chain chain;
    private final IntFunction<SectionHasher> hasherFor;

    OntoLatest(Grammar grammar, Chain chain, IntFunction<SectionHasher> hasherFor) {
        this.grammar = grammar;
        this.chain = chain;
        this.hasherFor = hasherFor;
    }

    /** One group of events (a declaration) and the texts it left, by path: a fingerprint and {@code last_updated}. */
    private record Group(List<Event> events, Map<RepoPath, Mark> after) {}

    private record Mark(long fingerprint, String lastUpdated) {}

    List<Result> run(Map<RepoPath, String> snapshots, java.util.function.Function<List<Event>, Mutation> replayer)
            throws IOException {
        // Replay everything once, remembering for each group the hash of each text it left.
        List<Group> groups = new ArrayList<>();
        Map<RepoPath, String> state = new HashMap<>();
        DeclarationGroups it = new DeclarationGroups(chain.read(1));
        while (it.hasNext()) {
            List<Event> cur = it.next();
            Map<RepoPath, Mark> after = new HashMap<>();
            try {
                Mutation.Result r = replayer.apply(cur)
                        .apply(
                                p -> Optional.ofNullable(state.get(p)),
                                Instant.parse(cur.get(0).ts()));
                if (r instanceof Mutation.Done done) {
                    done.newContents().forEach((p, t) -> {
                        if (t == null) {
                            state.remove(p);
                        } else {
                            state.put(p, t);
                        }
                        after.put(p, new Mark(fingerprint(t), t == null ? null : lastUpdated(t)));
                    });
                }
            } catch (RuntimeException ex) {
                // a group replay cannot redo leaves no fingerprint; the files it touches are judged by time
            }
            groups.add(new Group(List.copyOf(cur), after));
        }
        List<Result> out = new ArrayList<>();
        for (Map.Entry<RepoPath, String> snap : snapshots.entrySet()) {
            out.add(onto(snap.getKey(), snap.getValue(), groups));
        }
        return out;
    }

    private Result onto(RepoPath path, String snapshot, List<Group> groups) {
        long want = fingerprint(snapshot);
        int base = -1;
        for (int i = 0; i < groups.size(); i++) {
            Mark m = groups.get(i).after().get(path);
            if (m != null && m.fingerprint() == want) {
                base = i;
            }
        }
        if (base < 0) {
            // Not a text the ledger ever produced (edited after the backup was taken): place it after
            // the last write that left the same last_updated; the before_hash checks catch a wrong guess.
            String lu = lastUpdated(snapshot);
            for (int i = 0; i < groups.size(); i++) {
                Mark m = groups.get(i).after().get(path);
                if (m != null && lu != null && lu.equals(m.lastUpdated())) {
                    base = i;
                }
            }
            if (base < 0) {
                return new Result(
                        path,
                        "halted",
                        0,
                        null,
                        "the snapshot matches no point of the ledger's history (by content or" + " last_updated " + lu
                                + ")",
                        snapshot);
            }
        }
        String text = snapshot;
        int applied = 0;
        String reanchored = null;
        for (int i = base + 1; i < groups.size(); i++) {
            List<Event> mine = new ArrayList<>();
            for (Event e : groups.get(i).events()) {
                if (path.value().equals(e.filePath())) {
                    mine.add(e);
                }
            }
            if (mine.isEmpty()) {
                continue;
            }
            for (Event e : mine) {
                Step s = step(path, text, e, reanchored == null);
                if (s.halt != null) {
                    return new Result(
                            path,
                            "halted",
                            applied,
                            reanchored,
                            "ledger line " + e.seq() + " (" + e.op() + " " + e.sectionAnchor() + "): " + s.halt,
                            snapshot);
                }
                if (s.reanchored != null) {
                    reanchored = s.reanchored;
                }
                text = s.text;
                applied++;
            }
        }
        return new Result(
                path, applied == 0 && reanchored == null ? "up_to_date" : "applied", applied, reanchored, null, text);
    }

    private record Step(String text, String reanchored, String halt) {}

    /** One event onto the current text, strictly; a re-anchor is tried when {@code mayReanchor}. */
    private Step step(RepoPath path, String text, Event e, boolean mayReanchor) {
        Optional<GrammarOpPayload> grammarOp = EventPayloads.grammarOp(e);
        SectionHasher hasher = hasherFor.apply(e.integrity().saltVersion());
        String reanchored = null;
        if (grammarOp.isPresent()
                && e.sectionAnchor() != null
                && !e.sectionAnchor().contains("/")) {
            String anchor = e.sectionAnchor();
            Optional<MemoryDocument.Section> sec = section(text, anchor);
            if (sec.isEmpty()) {
                if (!mayReanchor) {
                    return new Step(
                            null,
                            null,
                            "section '" + anchor + "' is missing and this file was re-anchored once already");
                }
                HumanEdits.Reanchored r = HumanEdits.boundedReanchor(grammar, path, text, anchor);
                if (r.text() == null) {
                    return new Step(
                            null, null, "section '" + anchor + "' is missing and re-anchoring failed: " + r.error());
                }
                text = r.text();
                reanchored = anchor;
                sec = section(text, anchor);
            }
            if (e.beforeHash() != null
                    && !hasher.hash(MemoryDocument.parse(text).canonicalBody(sec.orElseThrow()))
                            .equals(e.beforeHash())) {
                return new Step(
                        null, null, "section '" + anchor + "' differs from the text this event was written against");
            }
            ObjectNode opJson = grammarOp.get().op().deepCopy();
            opJson.remove("before_hash");
            OpParse parsed = OpCodec.parseRecorded(opJson);
            if (!(parsed instanceof OpParse.Ok ok)) {
                return new Step(null, null, "the op cannot be parsed");
            }
            String t0 = text;
            ApplyResult r = Declarations.replay(
                    grammar,
                    q -> q.equals(path) ? Optional.of(t0) : Optional.empty(),
                    List.<Op>of(ok.op()),
                    Instant.parse(e.ts()),
                    hasher,
                    Set.of(),
                    grammarOp.get().crlf() ? Set.of(path) : Set.of());
            if (r instanceof ApplyResult.Rejected rej) {
                return new Step(null, null, rej.reason().wireName() + ": " + rej.message());
            }
            return new Step(((ApplyResult.Applied) r).newContents().getOrDefault(path, text), reanchored, null);
        }
        Optional<HumanEditPayload> edit = EventPayloads.humanEdit(e);
        if (HumanCapture.OP_EDIT.equals(e.op()) && edit.isEmpty()) {
            return new Step(null, null, "the human edit's region or text cannot be read");
        }
        if (edit.isPresent()) {
            if (edit.get() instanceof HumanEditPayload.WholeFile w) {
                return new Step(w.text(), null, null);
            }
            HumanEditPayload.Region p = (HumanEditPayload.Region) edit.get();
            String key = p.region();
            Optional<HumanEdits.Region> region = HumanEdits.region(text, key);
            if (region.isEmpty()) {
                return new Step(null, null, "region '" + key + "' is missing");
            }
            if (e.beforeHash() != null
                    && !hasher.hash(HumanEdits.canonical(region.get())).equals(e.beforeHash())) {
                return new Step(null, null, "region '" + key + "' differs from the text this edit was made on");
            }
            List<HumanEdits.Region> all = HumanEdits.regions(text);
            int index = all.indexOf(region.get());
            return new Step(HumanEdits.applyRegion(text, key, index, p.text()).orElseThrow(), null, null);
        }
        return new Step(text, null, null); // drift and other events change no text
    }

    private static Optional<MemoryDocument.Section> section(String text, String anchor) {
        return MemoryDocument.parse(text).h2Sections().stream()
                .filter(s -> anchor.equals(s.anchor()))
                .findFirst();
    }

    private static String lastUpdated(String text) {
        JsonNode fm = MemoryDocument.parse(text).frontmatter();
        return fm == null
                ? null
                : fm.path("slice").path("meta").path("last_updated").asText(null);
    }

    private static long fingerprint(String text) {
        if (text == null) {
            return 0;
        }
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        long h = 0xcbf29ce484222325L; // FNV-1a 64; texts that match are compared by it only after a full replay
        for (byte x : b) {
            h ^= x & 0xff;
            h *= 0x100000001b3L;
        }
        return h ^ b.length;
    }

    static HumanSource source() {
        return new HumanSource.ReplayOntoLatest();
    }

    static Map<RepoPath, String> changed(List<Result> results, Map<RepoPath, String> snapshots) {
        Map<RepoPath, String> out = new LinkedHashMap<>();
        for (Result r : results) {
            if (r.outcome().equals("applied") && !r.text().equals(snapshots.get(r.path()))) {
                out.put(r.path(), r.text());
            }
        }
        return out;
    }
}
