package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.CommitBatch;
import dev.memoryd.daemon.git.CommitFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.logging.Logger;

/**
 * Commits, once writes pause, what memoryd put back on disk after a commit made with git left it
 * out ({@link WriterState#putBackNext}: its text of memory files, its ledger lines). The next
 * batch would carry it, but until some batch does, the branch lacks lines the ledger holds (so
 * {@code replay --verify} differs and a clone fails {@code ledger verify}) and {@code git status}
 * shows memoryd's files as changed, inviting a human to discard them. The commit records no event:
 * it changes nothing the ledger does not already hold, as {@link ForeignCommit} does for other
 * chains' lines.
 *
 * <p>It commits only what is still on disk as memoryd put it back; a file changed since is left
 * for the next capture and batch, which record the change and carry the rest. It holds the
 * branch's ref lock throughout, records the files in the index before the ref moves (so a
 * human's {@code git commit} never finds the branch ahead of the index), and moves the ref only
 * from the commit the writer captured last, and not while a git command waits half-way in the
 * working tree ({@link GitInProgress}). For the checked-out branch only (the writer of a branch in
 * Git alone puts back with its next batch). Writer thread only.
 */
final class PutBackCommit {
    private static final Logger LOG = Logger.getLogger(WritePipeline.class.getName());

    /** What came of one try. */
    enum Result {
        /** Committed, or nothing was waiting. */
        DONE,
        /** Not now: the ref or index is locked, the branch moved, or a file changed since: try later. */
        LATER
    }

    private final WriterState s;

    PutBackCommit(WriterState s) {
        this.s = s;
    }

    Result commit() throws IOException {
        if (s.putBackNext.isEmpty()) {
            return Result.DONE;
        }
        if (!onDiskAsPutBack() || GitInProgress.of(s.git.repository()).isPresent()) {
            return Result.LATER;
        }
        if (!s.git.holdRef(0)) {
            return Result.LATER;
        }
        try {
            if (!Objects.equals(s.git.refNow(), s.captured)) {
                return Result.LATER; // a commit made with git is still to be captured: it may change what is put back
            }
            Map<String, byte[]> files = new LinkedHashMap<>(s.putBackNext);
            Instant now = s.clock.instant().truncatedTo(ChronoUnit.SECONDS);
            try (CommitBatch gb = s.git.batch()) {
                gb.commit(files, CommitFormat.committer(now), CommitFormat.committer(now), message(files), null);
                gb.flush();
                gb.forceFlushed();
                if (!s.git.updateIndex(s.files.root(), gb.written())) {
                    return Result.LATER; // git holds the index: the ref stays where the index says it is
                }
                gb.moveRef().orThrow();
            }
            s.movedToOwnCommit();
            s.putBackNext.clear();
            s.recordedInIndex(files.keySet());
            LOG.info("committed memoryd's text that a commit made with git had left out: " + files.keySet());
            return Result.DONE;
        } finally {
            s.git.releaseRef();
        }
    }

    /** Whether every waiting file is on disk with the bytes memoryd put back. */
    private boolean onDiskAsPutBack() throws IOException {
        for (Map.Entry<String, byte[]> e : s.putBackNext.entrySet()) {
            Path f = s.files.root().resolve(e.getKey());
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                    || !Arrays.equals(Files.readAllBytes(f), e.getValue())) {
                return false;
            }
        }
        return true;
    }

    private static String message(Map<String, byte[]> files) {
        StringBuilder m = new StringBuilder("memoryd: put back what a commit made with git left out\n\n");
        m.append("A commit made with git took out of these files text or ledger lines that memoryd had\n")
                .append("recorded; the ledger still holds them, so they are put back (no new event):\n\n");
        files.keySet().forEach(p -> m.append("  ").append(p).append('\n'));
        return m.toString();
    }
}
