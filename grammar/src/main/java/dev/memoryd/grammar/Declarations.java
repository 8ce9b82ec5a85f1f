package dev.memoryd.grammar;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Applies a declaration (a list of ops) to in-memory copies of memory files.
 *
 * <p>Contract: pure and deterministic given (grammar, file contents, ops, now, hasher):
 * replay with the same inputs yields byte-identical output. Ops apply in order, each
 * seeing the previous op's result; the first failing op rejects the whole declaration
 * ({@link ApplyResult.Rejected}) and nothing is to be written. Only the bytes of target
 * sections change, plus {@code slice.meta.last_updated} and the Change Log of each
 * changed file (one rollup bullet per day, plus inline lines for curations and cap
 * overrides). See docs/DESIGN.md for the op table and error reasons.
 *
 * <p>Body layout written by ops: one blank line after the anchor line, the content, and
 * one blank line before the next heading (none at EOF); an empty section has just the
 * blank line. Empty list sections hold no placeholder text.
 *
 * <p>This class is the entry point and turns refusals into values; each op has its applier
 * ({@link CreateEntityApplier}, and behind {@link SectionOpApplier} one per section op), with
 * {@link ChangeLog}, {@link CapsAndLocks} and {@link ResultLint} beside them.
 */
public final class Declarations {
    private Declarations() {}

    /**
     * Applies the ops in order. In a file whose first line ends with CRLF (a human's editor on
     * Windows), the lines the ops and the Change Log add end with CRLF too ({@link
     * ApplyResult.Applied#crlf}); section hashes are the same either way.
     *
     * @param g      the grammar
     * @param files  current file contents (read lazily, at most once per path)
     * @param ops    the declaration's ops
     * @param now    the declaration's timestamp (used for last_updated and Change Log dates)
     * @param hasher section hash function
     */
    public static ApplyResult apply(Grammar g, FileSource files, List<Op> ops, Instant now, SectionHasher hasher) {
        return apply(g, files, ops, now, hasher, false);
    }

    /**
     * Redoes a declaration the ledger already accepted: the same texts as {@link #apply}, without
     * the whole-file lint of each result, which only guards new writes (replay and recovery). No
     * file keeps CRLF line ends: see {@link #replay(Grammar, FileSource, List, Instant,
     * SectionHasher, Set, Set)}.
     */
    public static ApplyResult replay(Grammar g, FileSource files, List<Op> ops, Instant now, SectionHasher hasher) {
        return apply(g, files, ops, now, hasher, true, Set.of(), p -> false);
    }

    /**
     * As {@link #replay(Grammar, FileSource, List, Instant, SectionHasher)}, but the
     * {@code create_entity} ops at {@code unlinked} (op indexes) write {@code links: []}, as
     * they did before the templates carried the example tree's links, so lines recorded then
     * replay to the text they recorded.
     */
    public static ApplyResult replay(
            Grammar g, FileSource files, List<Op> ops, Instant now, SectionHasher hasher, Set<Integer> unlinked) {
        return replay(g, files, ops, now, hasher, unlinked, Set.of());
    }

    /**
     * As {@link #replay(Grammar, FileSource, List, Instant, SectionHasher, Set)}; the lines written
     * to the files at {@code crlf} end with CRLF where the file's did, as {@link #apply} writes
     * them, and to every other file with a lone LF, as memoryd wrote them before it kept a file's
     * CRLF line ends: the caller names the files whose recorded lines say they were kept.
     */
    public static ApplyResult replay(
            Grammar g,
            FileSource files,
            List<Op> ops,
            Instant now,
            SectionHasher hasher,
            Set<Integer> unlinked,
            Set<RepoPath> crlf) {
        Set<RepoPath> kept = Set.copyOf(crlf);
        return apply(g, files, ops, now, hasher, true, Set.copyOf(unlinked), kept::contains);
    }

    private static ApplyResult apply(
            Grammar g, FileSource files, List<Op> ops, Instant now, SectionHasher hasher, boolean trusted) {
        return apply(g, files, ops, now, hasher, trusted, Set.of(), p -> true);
    }

    private static ApplyResult apply(
            Grammar g,
            FileSource files,
            List<Op> ops,
            Instant now,
            SectionHasher hasher,
            boolean trusted,
            Set<Integer> unlinked,
            Predicate<RepoPath> mayKeepCrlf) {
        Objects.requireNonNull(g, "grammar");
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(ops, "ops");
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(hasher, "hasher");
        DeclarationRun run = new DeclarationRun(g, files, now, hasher, trusted, unlinked, mayKeepCrlf);
        List<OpOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            try {
                outcomes.add(run.apply(ops.get(i), i));
            } catch (OpRejected r) {
                return new ApplyResult.Rejected(i, r.reason, r.getMessage(), r.details);
            }
        }
        try {
            Map<RepoPath, String> out = run.finish();
            return new ApplyResult.Applied(outcomes, out, !out.isEmpty(), run.crlfKept());
        } catch (OpRejected r) {
            int idx = r.details.get("op_index") instanceof Integer n ? n : ops.size() - 1;
            Map<String, Object> d = new LinkedHashMap<>(r.details);
            d.remove("op_index");
            return new ApplyResult.Rejected(idx, r.reason, r.getMessage(), d);
        }
    }
}
