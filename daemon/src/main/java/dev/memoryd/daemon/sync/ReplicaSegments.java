package dev.memoryd.daemon.sync;

import dev.memoryd.daemon.branch.Branches;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Ledger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Other replicas' ledger chains, brought from fetched heads into the ledger directory: a segment
 * file is only ever extended with the lines a head holds beyond it, never shortened or rewritten,
 * and never one of this root's own chains. Each file is written atomically.
 *
 * <p>Not thread-safe: used by one {@link Sync} run at a time.
 */
final class ReplicaSegments {
    private final Path root;
    private final GitStore git;
    private final Ledger ledger;
    private final Branches branches;

    ReplicaSegments(Path root, GitStore git, Ledger ledger, Branches branches) {
        this.root = root;
        this.git = git;
        this.ledger = ledger;
        this.branches = branches;
    }

    /**
     * Writes to the ledger directory every segment of another replica's chain that a fetched head
     * holds beyond what is on disk (never this root's own chains, never shortening a file), so
     * links to those chains verify and replay can follow a replica's fork; a chain not committed on
     * the checked-out branch stays out of its {@code git status}. Returns the files written.
     */
    int materialize(Map<String, ObjectId> heads) throws IOException {
        Map<String, byte[]> best = new TreeMap<>();
        ObjectId checkedOut = git.refNow();
        for (Map.Entry<String, ObjectId> e : heads.entrySet()) {
            ObjectId h = e.getValue();
            // What the local branch holds was brought in by earlier syncs: only the difference is read.
            ObjectId base = git.branchHead(e.getKey()).orElse(checkedOut);
            for (String path : git.changedPaths(base, h, p -> p.startsWith("ledger/"))) {
                BranchName chain = Branches.chainOfPath(path);
                if (chain == null || branches.ours(chain)) {
                    continue;
                }
                byte[] b = git.read(h, path).orElse(null);
                byte[] have = best.get(path);
                if (b != null && (have == null || b.length > have.length)) {
                    best.put(path, b);
                }
            }
        }
        int written = 0;
        List<BranchName> excluded = new ArrayList<>();
        String checkedOutName = branches.checkedOutName();
        for (Map.Entry<String, byte[]> e : best.entrySet()) {
            Path file = root.resolve(e.getKey());
            Optional<byte[]> disk = Files.exists(file) ? Optional.of(Files.readAllBytes(file)) : Optional.empty();
            byte[] t = e.getValue();
            if (disk.isPresent()
                    && (disk.get().length >= t.length
                            || !java.util.Arrays.equals(disk.get(), 0, disk.get().length, t, 0, disk.get().length))) {
                continue; // never shorter, and never lines other than the ones we hold (the merge refuses those)
            }
            dev.memoryd.daemon.write.ResetRecovery.writeAtomically(file, e.getValue());
            written++;
            BranchName chain = Branches.chainOfPath(e.getKey());
            if (!chain.gitBranch().value().equals(checkedOutName) && !excluded.contains(chain)) {
                branches.excludeChain(chain);
                excluded.add(chain);
            }
        }
        ledger.refresh(c -> !branches.ours(c));
        return written;
    }
}
