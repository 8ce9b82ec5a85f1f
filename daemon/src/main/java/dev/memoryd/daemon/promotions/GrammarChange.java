package dev.memoryd.daemon.promotions;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.GrammarChangePayload;
import dev.memoryd.daemon.write.GrammarFiles;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.FileType;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.GrammarEdit;
import dev.memoryd.grammar.LintProblem;
import dev.memoryd.grammar.Linter;
import dev.memoryd.grammar.Promotion;
import dev.memoryd.grammar.RepoPath;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One change of the grammar in force as one declaration: the root's {@code templates/grammar.yaml}
 * (and, the first time, every template, so the root's grammar no longer depends on the daemon's)
 * rewritten as {@link GrammarEdit} gives it, recorded as one {@value #OP} event; a promotion also
 * migrates each file of {@code migrate} of the promoted type ({@link Promotion}), one
 * {@value #OP_MIGRATED} event per file it changed. A change of a section's kind is refused when a
 * file of {@code migrate} of its type would lint with a problem it did not have before (the
 * refusal's {@code files} names each and its problems); it changes no memory file. Deterministic given the files, so replay redoes
 * it from its events under the grammar then in force ({@link #fromEvents}).
 */
record GrammarChange(GrammarFiles grammars, GrammarEdit.Change change, List<RepoPath> migrate) implements Mutation {
    static final String OP = GrammarChangePayload.OP;
    static final String OP_MIGRATED = "section_promoted";

    GrammarChange {
        migrate = List.copyOf(migrate);
    }

    @Override
    public Result apply(FileSource files, Instant now) {
        Grammar before = grammars.inForce(files);
        GrammarEdit.Result r = GrammarEdit.apply(before, change);
        if (r instanceof GrammarEdit.Refused no) {
            ErrorReason reason = !no.unknown()
                    ? ErrorReason.INVALID_REQUEST
                    : change instanceof GrammarEdit.SetCap || change instanceof GrammarEdit.SetKind
                            ? ErrorReason.UNKNOWN_SECTION
                            : ErrorReason.NOT_FOUND;
            return new Refused(-1, new Failure(reason, no.message(), Map.of()));
        }
        GrammarEdit.Edited e = (GrammarEdit.Edited) r;
        if (change instanceof GrammarEdit.SetKind) {
            Optional<Failure> dirty = newLintProblems(files, before, e.grammar());
            if (dirty.isPresent()) {
                return new Refused(-1, dirty.get());
            }
        }
        Map<RepoPath, String> out = new LinkedHashMap<>();
        out.put(GrammarFiles.GRAMMAR, e.yaml());
        boolean first = files.read(GrammarFiles.GRAMMAR).isEmpty();
        e.grammar().templates().forEach((name, text) -> {
            if (first || !before.templates().get(name).equals(text)) {
                out.put(GrammarFiles.template(name), text);
            }
        });
        List<EventSpec> events = new ArrayList<>();
        events.add(new EventSpec(
                OP, GrammarFiles.GRAMMAR, null, null, null, payload(e.grammar().version()), List.of(), summary()));
        if (e.promoted() != null) {
            FileType type = e.grammar().fileType(change.fileType());
            for (RepoPath p : migrate) {
                Optional<String> text = files.read(p);
                if (text.isEmpty()
                        || !e.grammar()
                                .fileTypeOf(p)
                                .map(t -> t.name().equals(type.name()))
                                .orElse(false)) {
                    continue;
                }
                String next = Promotion.migrate(text.get(), type.sections(), e.promoted());
                if (next.equals(text.get())) {
                    continue;
                }
                out.put(p, next);
                ObjectNode pl = JsonNodeFactory.instance.objectNode();
                pl.put("section", e.promoted().name());
                pl.put("version", e.grammar().version());
                events.add(new EventSpec(
                        OP_MIGRATED,
                        p,
                        e.promoted().anchor(),
                        null,
                        null,
                        pl,
                        List.of(),
                        "promote " + e.promoted().name() + " in " + p.value()));
            }
        }
        return new Done(out, events, true);
    }

    /** The files of the changed type that would lint with problems they do not have now, as a refusal. */
    private Optional<Failure> newLintProblems(FileSource files, Grammar before, Grammar after) {
        Linter linter = new Linter();
        List<Map<String, Object>> dirty = new ArrayList<>();
        for (RepoPath p : migrate) {
            Optional<String> text = files.read(p);
            if (text.isEmpty()
                    || !after.fileTypeOf(p)
                            .map(t -> t.name().equals(change.fileType()))
                            .orElse(false)) {
                continue;
            }
            List<LintProblem> was = linter.lint(before, p, text.get());
            List<String> fresh = linter.lint(after, p, text.get()).stream()
                    .filter(x -> !was.contains(x))
                    .map(x -> "line " + x.line() + " " + x.rule() + ": " + x.message())
                    .toList();
            if (!fresh.isEmpty()) {
                dirty.add(Failure.ordered("path", p.value(), "problems", fresh));
            }
        }
        if (dirty.isEmpty()) {
            return Optional.empty();
        }
        GrammarEdit.SetKind k = (GrammarEdit.SetKind) change;
        return Optional.of(new Failure(
                ErrorReason.INVALID_REQUEST,
                "making '" + k.section() + "' of " + k.fileType()
                        + " files " + k.kind().wireName() + " would leave " + dirty.size()
                        + " file(s) lint-dirty, first "
                        + dirty.get(0).get("path") + ": "
                        + ((List<?>) dirty.get(0).get("problems")).get(0)
                        + "; fix them first (lint lists them)",
                Map.of("files", dirty)));
    }

    private String summary() {
        if (change instanceof GrammarEdit.Promote p) {
            return "promote '" + p.heading() + "' from Extensions to a section of " + p.fileType() + " files";
        }
        if (change instanceof GrammarEdit.Reject r) {
            return "reject the promotion of '" + r.heading() + "' in " + r.fileType() + " files";
        }
        if (change instanceof GrammarEdit.SetKind k) {
            return "make " + k.section() + " of " + k.fileType() + " files a "
                    + k.kind().wireName() + " section";
        }
        GrammarEdit.SetCap c = (GrammarEdit.SetCap) change;
        return "set " + c.cap() + " of " + c.section() + " in " + c.fileType() + " files to " + c.value();
    }

    private ObjectNode payload(int version) {
        ObjectNode pl = JsonNodeFactory.instance.objectNode();
        ObjectNode c = pl.putObject("change");
        c.put("file_type", change.fileType());
        if (change instanceof GrammarEdit.Promote p) {
            c.put("kind", "promote")
                    .put("heading", p.heading())
                    .put("section_kind", p.kind().name().toLowerCase(java.util.Locale.ROOT));
        } else if (change instanceof GrammarEdit.Reject r) {
            c.put("kind", "reject").put("heading", r.heading());
        } else if (change instanceof GrammarEdit.SetKind k) {
            c.put("kind", "set_kind")
                    .put("section", k.section())
                    .put("section_kind", k.kind().wireName());
        } else {
            GrammarEdit.SetCap s = (GrammarEdit.SetCap) change;
            c.put("kind", "set_cap")
                    .put("section", s.section())
                    .put("cap", s.cap())
                    .put("value", s.value());
        }
        pl.put("version", version);
        return pl;
    }

    /** The change one declaration's events recorded: its first event's payload, the files its other events name. */
    static GrammarChange fromEvents(GrammarFiles grammars, List<dev.memoryd.ledger.Event> events) {
        GrammarEdit.Change change = EventPayloads.grammarChange(events.get(0))
                .map(GrammarChangePayload::change)
                .orElseThrow(() -> new IllegalStateException(
                        "ledger line " + events.get(0).seq() + ": unreadable grammar change"));
        List<RepoPath> paths = events.subList(1, events.size()).stream()
                .filter(ev -> ev.filePath() != null)
                .map(ev -> RepoPath.of(ev.filePath()))
                .toList();
        return new GrammarChange(grammars, change, paths);
    }
}
