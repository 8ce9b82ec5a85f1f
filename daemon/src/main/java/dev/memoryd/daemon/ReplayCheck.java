package dev.memoryd.daemon;

import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.write.GrammarFiles;
import dev.memoryd.daemon.write.LedgerReplay;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.human.HumanEdits;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongConsumer;

/**
 * {@code replay --verify}: every memory file (and {@code .slices/} file, and the root's grammar)
 * rebuilt from the ledger alone, from empty, and compared byte for byte with the working tree,
 * naming the sections that differ. The caller makes sure files, ledger and branch are at rest
 * (the writer thread between batches, or a check with no writer thread at all).
 */
public final class ReplayCheck {
    private ReplayCheck() {}

    /** What {@code replay --verify} found. */
    public record ReplayReport(
            long events,
            long declarations,
            int files,
            List<Difference> differences,
            List<LedgerReplay.ReplayHalt> halts,
            long nanos) {
        public ReplayReport {
            differences = List.copyOf(differences);
            halts = List.copyOf(halts);
        }

        public boolean ok() {
            return differences.isEmpty() && halts.isEmpty();
        }
    }

    /** One file whose replayed text is not what the working tree holds. */
    public record Difference(String path, String kind, List<String> sections, String detail) {}

    static ReplayReport run(WritePipeline writer, WorkTree tree, MemorydConfig cfg, LongConsumer progress)
            throws IOException {
        long t0 = System.nanoTime();
        LedgerReplay.ReplayState st = writer.replayFromEmpty(progress);
        Map<String, String> expected = new TreeMap<>();
        st.files().forEach((p, t) -> {
            // The root's grammar is replayed too: each event is redone under the grammar then in force.
            if (RootLayout.isContentFile(p.value()) || GrammarFiles.isGrammarFile(p)) {
                expected.put(p.value(), t);
            }
        });
        Set<String> paths = new TreeSet<>(expected.keySet());
        paths.addAll(RootLayout.contentFilesOnDisk(cfg.root()));
        Set<String> halted = new HashSet<>();
        st.halts().forEach(h -> halted.add(h.path().value()));
        Set<String> conflicted = new HashSet<>(writer.conflictedInIndex());
        List<Difference> diffs = new ArrayList<>();
        for (String p : paths) {
            if (halted.contains(p)) {
                continue;
            }
            Optional<String> disk;
            try {
                disk = tree.read(RepoPath.of(p));
            } catch (dev.memoryd.daemon.layout.NotMemoryText e) {
                // A symbolic link or bytes that are not UTF-8: a difference to report, not a failed replay.
                diffs.add(new Difference(p, "not_text", List.of(), e.getMessage()));
                continue;
            }
            String want = expected.get(p);
            if (disk.isPresent() && disk.get().equals(want)) {
                continue;
            }
            if (conflicted.contains(p)) {
                diffs.add(new Difference(
                        p,
                        "unmerged",
                        List.of(),
                        "git's index holds this file in conflict (a merge, stash pop or revert stopped on it): the"
                                + " working tree holds git's markers, not compared; resolve it and git add it, or"
                                + " abort the git command, then check again"));
            } else if (want == null) {
                diffs.add(new Difference(
                        p, "not_in_ledger", List.of(), "the working tree has a file no ledger event wrote"));
            } else if (disk.isEmpty()) {
                diffs.add(new Difference(
                        p, "missing", List.of(), "the ledger writes this file but the working tree has none"));
            } else {
                diffs.add(new Difference(
                        p,
                        "differs",
                        differingRegions(want, disk.get()),
                        "the working tree differs from the replayed text"));
            }
        }
        return new ReplayReport(st.events(), st.groups(), expected.size(), diffs, st.halts(), System.nanoTime() - t0);
    }

    /** Region keys (sections; {@code _head} for frontmatter and title) whose text differs. */
    static List<String> differingRegions(String a, String b) {
        Map<String, String> x = new LinkedHashMap<>();
        HumanEdits.regions(a).forEach(r -> x.put(r.key(), r.text()));
        Map<String, String> y = new LinkedHashMap<>();
        HumanEdits.regions(b).forEach(r -> y.put(r.key(), r.text()));
        Set<String> keys = new LinkedHashSet<>(x.keySet());
        keys.addAll(y.keySet());
        List<String> out = new ArrayList<>();
        for (String k : keys) {
            if (!Objects.equals(x.get(k), y.get(k))) {
                out.add(k);
            }
        }
        return out;
    }
}
