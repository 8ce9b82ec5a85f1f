package dev.memoryd.daemon.promotions;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.git.HumanActor;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.FileType;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.GrammarEdit;
import dev.memoryd.grammar.Promotion;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Maintainers' changes to the grammar (file grammar §13: "review Extensions → Core promotions;
 * tune linting and caps"). {@link #list} proposes each H3 subsection of Extensions whose heading
 * recurs in at least N files of one type and that is neither a section already nor rejected;
 * {@link #accept}, {@link #reject}, {@link #setCap} and {@link #setKind} are each one declaration, one commit and
 * one {@link GrammarChange} (a promotion also migrates every file of its type in that same
 * commit). Only a person decides: {@code actor} must be a human's ({@code human:Name <email>}),
 * else {@code prohibited}. Thread-safe.
 */
public final class Promotions {
    /** How many files of one type must hold a heading before it is proposed, unless the root or a request says otherwise. */
    public static final int DEFAULT_MIN_FILES = 3;

    private final WritePipeline writer;
    private final Supplier<Grammar> inForce;
    private final Supplier<List<RepoPath>> memoryFiles;
    private final Function<RepoPath, Optional<String>> read;
    private final int minFiles;

    /**
     * @param inForce     the grammar in force on the checked-out branch
     * @param memoryFiles every memory file of the checked-out branch
     * @param read        a memory file's recorded text
     * @param minFiles    the root's threshold for {@link #list} ({@code promotions.min_files} of its settings)
     */
    public Promotions(
            WritePipeline writer,
            Supplier<Grammar> inForce,
            Supplier<List<RepoPath>> memoryFiles,
            Function<RepoPath, Optional<String>> read,
            int minFiles) {
        if (minFiles < 1) {
            throw new IllegalArgumentException("minFiles must be at least 1");
        }
        this.minFiles = minFiles;
        this.writer = writer;
        this.inForce = inForce;
        this.memoryFiles = memoryFiles;
        this.read = read;
        registerReplayer(writer);
    }

    /** Registers how to redo a grammar change on {@code w} (any branch's writer), under the grammar then in force there. */
    public static void registerReplayer(WritePipeline w) {
        w.registerReplayer(GrammarChange.OP, evs -> GrammarChange.fromEvents(w.grammars(), evs));
    }

    /** One proposed promotion: the heading, the file type and the files whose Extensions hold it. */
    public record Candidate(String fileType, String heading, String anchor, List<String> paths) {
        public Candidate {
            paths = List.copyOf(paths);
        }
    }

    /** The grammar in force and the promotions it proposes, most files first. */
    public record Listing(int version, int minFiles, List<Candidate> candidates) {
        public Listing {
            candidates = List.copyOf(candidates);
        }
    }

    /**
     * Recurring Extensions subsections of files of {@code fileType} (null: every type), in at least
     * {@code asked} files (null: the root's threshold).
     */
    public Outcome<Listing> list(String fileType, Integer asked) {
        int minFiles = asked == null ? this.minFiles : asked;
        if (minFiles < 1) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "min_files must be at least 1");
        }
        Grammar g = inForce.get();
        if (fileType != null && g.fileTypes().stream().noneMatch(t -> t.name().equals(fileType))) {
            return Outcome.fail(
                    ErrorReason.NOT_FOUND,
                    "no file type '" + fileType + "'; the grammar has "
                            + g.fileTypes().stream().map(FileType::name).toList());
        }
        Map<String, Map<String, List<String>>> seen = new TreeMap<>(); // type -> heading -> paths
        for (RepoPath p : memoryFiles.get()) {
            Optional<FileType> t = g.fileTypeOf(p);
            if (t.isEmpty()
                    || t.get().section("extensions").isEmpty()
                    || (fileType != null && !t.get().name().equals(fileType))) {
                continue;
            }
            Optional<String> text = read.apply(p);
            if (text.isEmpty()) {
                continue;
            }
            for (String h : new java.util.LinkedHashSet<>(Promotion.extensionHeadings(text.get()))) {
                seen.computeIfAbsent(t.get().name(), k -> new TreeMap<>())
                        .computeIfAbsent(h, k -> new ArrayList<>())
                        .add(p.value());
            }
        }
        List<Candidate> out = new ArrayList<>();
        seen.forEach((type, byHeading) -> byHeading.forEach((heading, paths) -> {
            FileType ft = g.fileType(type);
            String anchor = Grammar.slug(heading);
            boolean taken =
                    ft.section(heading).isPresent() || ft.section(anchor).isPresent() || anchor.isEmpty();
            if (paths.size() >= minFiles && !taken && !g.rejections().contains(new Grammar.Rejection(type, heading))) {
                out.add(new Candidate(
                        type, heading, anchor, paths.stream().sorted().toList()));
            }
        }));
        out.sort(java.util.Comparator.comparing((Candidate c) -> -c.paths().size())
                .thenComparing(Candidate::fileType)
                .thenComparing(Candidate::heading));
        return Outcome.ok(new Listing(g.version(), minFiles, out));
    }

    /** Promotes {@code heading} to a core section of {@code fileType} files ({@code kind}: narrative or list). */
    public Outcome<CompletableFuture<WriteOutcome>> accept(
            String fileType, String heading, String kind, String actor, String rationale) {
        SectionKind k;
        if (kind == null || kind.equals("narrative")) {
            k = SectionKind.NARRATIVE;
        } else if (kind.equals("list")) {
            k = SectionKind.LIST;
        } else {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "kind must be narrative or list, not '" + kind + "'");
        }
        List<RepoPath> files = memoryFiles.get();
        return submit(
                new GrammarChange(writer.grammars(), new GrammarEdit.Promote(fileType, heading, k), files),
                actor,
                rationale,
                "promoted '" + heading + "' in " + fileType + " files");
    }

    /** Records that {@code heading} of {@code fileType} files is not to be promoted, so it is not proposed again. */
    public Outcome<CompletableFuture<WriteOutcome>> reject(
            String fileType, String heading, String actor, String rationale) {
        return submit(
                new GrammarChange(writer.grammars(), new GrammarEdit.Reject(fileType, heading), List.of()),
                actor,
                rationale,
                "rejected promoting '" + heading + "' in " + fileType + " files");
    }

    /** Sets {@code cap} ({@code max_words} or {@code max_items}) of {@code section} of {@code fileType} files. */
    public Outcome<CompletableFuture<WriteOutcome>> setCap(
            String fileType, String section, String cap, int value, String actor, String rationale) {
        if (!"max_words".equals(cap) && !"max_items".equals(cap)) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "cap must be max_words or max_items, not '" + cap + "'");
        }
        if (value < 1) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "value must be at least 1");
        }
        return submit(
                new GrammarChange(writer.grammars(), new GrammarEdit.SetCap(fileType, section, cap, value), List.of()),
                actor,
                rationale,
                "set " + cap + " of " + section + " in " + fileType + " files to " + value);
    }

    /**
     * Makes {@code section} of {@code fileType} files a {@code kind} ({@code narrative} or
     * {@code list}) section; refused ({@code invalid_request}, naming the files) when a file of
     * that type would then lint with a problem it does not have now.
     */
    public Outcome<CompletableFuture<WriteOutcome>> setKind(
            String fileType, String section, String kind, String actor, String rationale) {
        SectionKind k;
        if ("narrative".equals(kind)) {
            k = SectionKind.NARRATIVE;
        } else if ("list".equals(kind)) {
            k = SectionKind.LIST;
        } else {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "kind must be narrative or list, not '" + kind + "'");
        }
        return submit(
                new GrammarChange(writer.grammars(), new GrammarEdit.SetKind(fileType, section, k), memoryFiles.get()),
                actor,
                rationale,
                "made " + section + " of " + fileType + " files a " + kind + " section");
    }

    private Outcome<CompletableFuture<WriteOutcome>> submit(
            GrammarChange change, String actor, String rationale, String fallback) {
        if (!HumanActor.is(actor)) {
            return Outcome.fail(
                    ErrorReason.PROHIBITED,
                    "only a maintainer changes the grammar (file grammar §13): actor must"
                            + " be a human's, 'human:Name <email>'" + (actor == null ? "" : ", not '" + actor + "'"));
        }
        if (change.change().fileType().isBlank()) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "file_type must name a file type");
        }
        String why = rationale != null && !rationale.isBlank() ? rationale : fallback + " by " + actor;
        return Outcome.ok(writer.submit(WriteRequest.of(change, why, actor)));
    }
}
