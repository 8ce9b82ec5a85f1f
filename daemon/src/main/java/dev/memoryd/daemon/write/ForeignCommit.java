package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.CommitBatch;
import dev.memoryd.daemon.git.CommitFormat;
import java.io.IOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;

/**
 * A commit of ledger files other replicas' chains hold, with no event of this branch's chain
 * (see {@link WritePipeline#commitForeign}). Thread-safety: on the writer thread only.
 */
final class ForeignCommit {
    private final WriterState s;

    ForeignCommit(WriterState s) {
        this.s = s;
    }

    Optional<ObjectId> commit(Map<String, byte[]> ledgerFiles, String message, ObjectId mergeParent)
            throws IOException {
        for (String p : ledgerFiles.keySet()) {
            if (!p.startsWith("ledger/")) {
                throw new IllegalArgumentException("not a ledger file: " + p);
            }
        }
        if (!s.git.holdRef(WriterState.lockWaitMs())) {
            throw new IOException("the branch is locked by another git command (" + s.git.refLockFile() + ")");
        }
        try {
            if (!java.util.Objects.equals(s.git.refNow(), s.captured)) {
                return Optional.empty();
            }
            s.files.writeAll(ledgerFiles);
            Instant now = s.clock.instant().truncatedTo(ChronoUnit.SECONDS);
            try (CommitBatch gb = s.git.batch()) {
                gb.commit(ledgerFiles, CommitFormat.committer(now), CommitFormat.committer(now), message, mergeParent);
                gb.publish().orThrow();
                if (s.files.workTree()) {
                    s.indexBacklog.putAll(gb.written());
                }
            }
            s.movedToOwnCommit();
            return Optional.of(s.captured);
        } finally {
            s.git.releaseRef();
        }
    }
}
