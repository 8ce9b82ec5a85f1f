package dev.memoryd.daemon;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.TreeChanges;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.search.SearchIndex;
import dev.memoryd.grammar.RepoPath;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.jgit.diff.DiffAlgorithm;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.EditList;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.diff.RawTextComparator;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Reads of a root's recorded history rather than its working tree: the memory files of the head
 * commit, what changed since a commit, a file's diff from its recorded text, and a search as of a
 * commit. Never writes. Thread-safe: every method reads Git objects.
 */
public final class CommitReads {
    private final MemorydConfig cfg;
    private final GitStore git;

    CommitReads(MemorydConfig cfg, GitStore git) {
        this.cfg = cfg;
        this.git = git;
    }

    /** The memory files of the checked-out branch's head commit, in path order, with that commit. */
    public TreeChanges.Listing memoryFiles() throws IOException {
        ObjectId h = git.head();
        return new TreeChanges.Listing(
                h == null ? null : h.name(), TreeChanges.files(git.repository(), h, RootLayout::isMemoryFile));
    }

    /**
     * The memory files added, modified or removed from commit {@code since} to the checked-out
     * branch's head; not_found when {@code since} names no commit.
     */
    public Outcome<TreeChanges.Delta> memoryFileChanges(String since) throws IOException {
        Optional<ObjectId> from = ObjectId.isId(since) ? git.resolve(since) : Optional.empty();
        if (from.isEmpty()) {
            return Outcome.fail(
                    ErrorReason.NOT_FOUND, "no commit '" + since + "' (give a full commit id, as ping's head)");
        }
        ObjectId h = git.head();
        return Outcome.ok(new TreeChanges.Delta(
                from.get().name(),
                h == null ? null : h.name(),
                TreeChanges.between(git.repository(), from.get(), h, RootLayout::isMemoryFile)));
    }

    /** A readable unified diff from a file's recorded text (the branch head's) to the given text (null: deleted). */
    public String diffFromRecorded(RepoPath path, String text) throws IOException {
        String recorded = git.head() == null
                ? ""
                : git.read(git.head(), path.value())
                        .map(b -> new String(b, StandardCharsets.UTF_8))
                        .orElse("");
        RawText a = new RawText(recorded.getBytes(StandardCharsets.UTF_8));
        RawText b = new RawText((text == null ? "" : text).getBytes(StandardCharsets.UTF_8));
        EditList edits = DiffAlgorithm.getAlgorithm(DiffAlgorithm.SupportedAlgorithm.HISTOGRAM)
                .diff(RawTextComparator.DEFAULT, a, b);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DiffFormatter f = new DiffFormatter(out)) {
            out.write(("--- a/" + path.value() + " (recorded)\n+++ b/" + path.value()
                            + (text == null ? " (deleted)" : " (drifted)") + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            f.format(edits, a, b);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * {@code search} as of a commit ({@code at}: a commit id, or the head of a branch that is not
     * checked out): the commit's memory files and slices, indexed for this query alone.
     */
    public Outcome<List<dev.memoryd.daemon.search.SearchHit>> searchAt(
            String q, int limit, String branch, String at, String source)
            throws IOException, SearchIndex.BadQuery, InterruptedException {
        Optional<ObjectId> c = git.resolve(at);
        if (c.isEmpty()) {
            return Outcome.fail(ErrorReason.NOT_FOUND, "no commit '" + at + "'");
        }
        Map<String, String> files = new TreeMap<>();
        for (String p : git.listFiles(c.get())) {
            if (RootLayout.isContentFile(p)) {
                git.read(c.get(), p).ifPresent(b -> files.put(p, new String(b, StandardCharsets.UTF_8)));
            }
        }
        return Outcome.ok(SearchIndex.searchSnapshot(
                files,
                branch == null ? cfg.branch() : branch,
                cfg.halfLife(),
                q,
                limit,
                cfg.clock().instant(),
                source));
    }
}
