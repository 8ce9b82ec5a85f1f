package dev.memoryd.daemon.write;

import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.Chain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Puts back the served chain's ledger files that commits made with git changed or removed. The
 * ledger is append-only and only memoryd writes it, yet a human's commit may take lines out of a
 * segment (a {@code git revert} of memoryd's commit takes out its line with its item) or change
 * one (a hand edit, committed). Left in the branch, such a segment fails {@code ledger verify} on
 * the root and on every clone for good, since memoryd never writes a full segment again.
 *
 * <p>memoryd's bytes (its own last commit's, or those already waiting) go back on disk at once and
 * into memoryd's next commit ({@link WriterState#putBackNext}); the active segment's disk copy is
 * the chain's to put back. A version that extends memoryd's is left as it is. Lines only taken off
 * the end (a revert's, a removed file) are put back and logged; lines changed are tampering, as on
 * disk ({@link ActiveSegmentCheck}): a {@code ledger_tampered} drift item naming the commits is
 * recorded with the batch, whose commit then carries the put-back lines. What the human's commit did
 * to memory files is theirs, and captured as their edit as usual. Writer thread only.
 */
final class LedgerPutBack {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    private LedgerPutBack() {}

    /**
     * After the commits from {@code memorydsCommit} to {@code tip} were captured: notes for the next
     * commit, and puts back on disk, each of the chain's files they changed from memoryd's version
     * to one that does not extend it.
     */
    static void afterCommits(
            WriterState s, WriteBatch b, ObjectId memorydsCommit, ObjectId tip, HumanSource.Commits by, Instant now)
            throws IOException {
        String dir = "ledger/" + s.chain.branch().value() + "/";
        List<String> putBack = new ArrayList<>();
        for (String path : s.git.changedPaths(memorydsCommit, tip, p -> p.startsWith(dir))) {
            byte[] ours = s.putBackNext.get(path);
            if (ours == null) {
                Optional<byte[]> before = s.git.read(memorydsCommit, path);
                if (before.isEmpty()) {
                    continue; // not a file memoryd wrote
                }
                ours = before.get();
            }
            Optional<byte[]> theirs = s.git.read(tip, path);
            if (theirs.isPresent() && startsWith(theirs.get(), ours)) {
                continue;
            }
            s.putBackNext.put(path, ours);
            putBack.add(path);
            if (theirs.isPresent() && !startsWith(ours, theirs.get())) {
                flag(
                        s,
                        b,
                        path,
                        "ledger segment " + path + " was changed by a commit made with git (" + tip.name()
                                + "); memoryd put back the lines it wrote (the changed copy is in that commit)",
                        by,
                        now);
            }
            if (path.equals(s.chain.activeSegmentPath())) {
                if (s.chain.activeOnDisk() == Chain.DiskState.OLDER) {
                    s.chain.restoreOlderActive();
                }
            } else {
                Path file = s.files.root().resolve(path);
                if (!Files.isRegularFile(file) || !Arrays.equals(Files.readAllBytes(file), ours)) {
                    ResetRecovery.writeAtomically(file, ours);
                }
            }
        }
        if (!putBack.isEmpty()) {
            LOG.warning("a commit made with git (" + tip.name() + ") changed ledger files only memoryd writes; their"
                    + " lines are put back on disk and in memoryd's next commit: " + putBack);
        }
    }

    /** Records a {@code ledger_tampered} drift item on {@code path} with the batch (memoryd's own declaration). */
    private static void flag(WriterState s, WriteBatch b, String path, String reason, HumanSource by, Instant now) {
        Mutation.Done d = new Mutation.Done(
                Map.of(),
                List.of(HumanCapture.flagged(
                        RepoPath.of(path),
                        s.ids.next().value(),
                        new dev.memoryd.grammar.human.HumanEdits.Breaks("ledger_tampered", reason, List.of()),
                        null,
                        by)),
                true);
        WriteRequest req =
                WriteRequest.of((src, t) -> d, "ledger segment " + path + " was changed by a commit", "memoryd");
        b.accept(new Pending(req, new CompletableFuture<>()), d, req, null, now);
        LOG.warning(reason);
    }

    private static boolean startsWith(byte[] whole, byte[] part) {
        return whole.length >= part.length && Arrays.equals(whole, 0, part.length, part, 0, part.length);
    }
}
