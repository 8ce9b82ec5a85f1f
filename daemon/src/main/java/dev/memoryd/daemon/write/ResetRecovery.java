package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Head;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ReflogEntry;
import org.eclipse.jgit.lib.ReflogReader;

/**
 * Puts back ledger lines a {@code git reset} (or checkout) took off the disk while memoryd was
 * down. The ledger is tracked, so moving the branch to an older commit also rolls this root's
 * chain files back to that commit's; the lines it removed are still in the commit the branch was
 * moved from. That commit is found in {@code ORIG_HEAD} and the branch's reflog (git writes
 * both; memoryd's own ref updates write neither); when one that the branch no longer contains
 * records a longer chain, each of the chain's segment files whose disk copy is a prefix of that
 * commit's copy is restored from it. Recovery then redoes those lines on top of the moved branch,
 * so no acknowledged write is lost to a reset. Run before the ledger is opened.
 */
public final class ResetRecovery {
    private ResetRecovery() {}

    /** Restores what it can; returns one sentence per file restored. */
    public static List<String> restore(GitStore git, Path root, BranchName chain) throws IOException {
        List<String> notes = new ArrayList<>();
        ObjectId head = git.head();
        if (head == null) {
            return notes;
        }
        Set<ObjectId> candidates = new LinkedHashSet<>();
        ObjectId orig = git.repository().resolve("ORIG_HEAD");
        if (orig != null) {
            candidates.add(orig);
        }
        ReflogReader log = git.repository().getReflogReader(Constants.R_HEADS + git.branch());
        if (log != null) {
            for (ReflogEntry e : log.getReverseEntries(20)) {
                if (!e.getOldId().equals(ObjectId.zeroId())) {
                    candidates.add(e.getOldId());
                }
            }
        }
        long onHead =
                LedgerTrailers.publishedHeadAt(git, head, chain).map(Head::seq).orElse(0L);
        ObjectId best = null;
        long bestSeq = onHead;
        for (ObjectId c : candidates) {
            if (git.repository().getObjectDatabase().has(c) && !git.isAncestor(c, head)) {
                Optional<Head> h = LedgerTrailers.publishedHeadAt(git, c, chain);
                if (h.isPresent() && h.get().seq() > bestSeq) {
                    best = c;
                    bestSeq = h.get().seq();
                }
            }
        }
        if (best == null) {
            return notes;
        }
        return restoreFrom(git, root, chain, best);
    }

    /**
     * Puts back {@code commit}'s copy of each of the chain's segment files whose disk copy is a
     * shorter prefix of it (an older version, as a reset writes); returns one sentence per file.
     */
    static List<String> restoreFrom(GitStore git, Path root, BranchName chain, ObjectId commit) throws IOException {
        List<String> notes = new ArrayList<>();
        String dir = "ledger/" + chain.value();
        for (String path : git.listFiles(commit, dir)) {
            byte[] theirs = git.read(commit, path).orElseThrow();
            Path file = root.resolve(path);
            byte[] disk = Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
            if (disk.length >= theirs.length
                    || !java.util.Arrays.equals(disk, 0, disk.length, theirs, 0, disk.length)) {
                continue; // as long, or not an older version of it: not ours to replace
            }
            writeAtomically(file, theirs);
            notes.add(path + ": restored from " + commit.name() + " (the branch was moved off it, and the move had"
                    + " rolled the ledger back; its later lines are redone on top)");
        }
        return notes;
    }

    /** Replaces {@code file} with {@code bytes}: temp file beside it, fsync, atomic rename, directory fsync. */
    public static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling("." + file.getFileName() + ".restore");
        try (FileChannel ch = FileChannel.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
