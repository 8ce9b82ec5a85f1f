package dev.memoryd.daemon;

import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.daemon.peers.Peers;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.ContentHasher;
import dev.memoryd.ledger.IdGenerator;
import dev.memoryd.ledger.KeyRing;
import dev.memoryd.ledger.Ledger;
import dev.memoryd.ledger.LedgerOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * {@code replay --verify} without a daemon: the writer and its rooms are built to replay, over
 * the ledger opened read-only, but nothing is recovered, started or written, and no lock is taken.
 * The replayed branch is the one checked out (the working tree it is compared with holds it), and
 * its chain the one that branch's head records (on a plain {@code git clone}, another root's).
 * Not thread-safe: one check at a time.
 */
public final class ReplayCheckRoot implements AutoCloseable {
    private final MemorydConfig cfg;
    private final ReadOnlyRoot view;
    private final Ledger ledger;
    private final WriterRooms rooms;

    private ReplayCheckRoot(MemorydConfig cfg, KeyRing keys, ReadOnlyRoot view, Ledger ledger) throws IOException {
        this.cfg = cfg;
        this.view = view;
        this.ledger = ledger;
        AtomicReference<ContentHasher> hasher = new AtomicReference<>(keys.contentHasher());
        BranchName branch = new BranchName(cfg.branch());
        this.rooms = new WriterRooms(
                view,
                ledger,
                ledger.chain(checkedChain(view.git(), cfg, branch)),
                ledger.chain(branch.onReplica(view.git().replica())),
                Optional.empty(),
                hasher,
                new IdGenerator(cfg.clock(), cfg.random()),
                Peers.NONE,
                RootSettings.DEFAULTS.promotionMinFiles(),
                List.of());
    }

    /**
     * Opens a root for {@link #verify} without a daemon: no lock, no recovery, no writer thread,
     * and no byte written.
     *
     * @throws KeyRing.MissingKeyFile when the key file does not exist
     */
    static ReplayCheckRoot open(MemorydConfig given) throws IOException {
        ReadOnlyRoot.requireRepository(given);
        KeyRing keys = KeyRing.loadExisting(given.keyFile());
        ReadOnlyRoot view = ReadOnlyRoot.open(given);
        MemorydConfig cfg = given;
        String full = view.git().repository().getFullBranch();
        if (full != null
                && full.startsWith(org.eclipse.jgit.lib.Constants.R_HEADS)
                && !full.equals(org.eclipse.jgit.lib.Constants.R_HEADS + given.branch())) {
            // The working tree holds the checked-out branch: its chain is the one to compare with.
            cfg = given.withBranch(full.substring(org.eclipse.jgit.lib.Constants.R_HEADS.length()));
            view.close();
            view = ReadOnlyRoot.open(cfg);
        }
        Ledger ledger = null;
        try {
            ledger = Ledger.openReadOnly(
                    cfg.ledgerDir(),
                    keys,
                    new LedgerOptions(cfg.segmentLines(), new IdGenerator(cfg.clock(), cfg.random())));
            return new ReplayCheckRoot(cfg, keys, view, ledger);
        } catch (IOException | RuntimeException e) {
            if (ledger != null) {
                ledger.close();
            }
            view.close();
            throw e;
        }
    }

    /**
     * The chain a check replays: the one the branch head records (on a plain {@code git clone},
     * another root's), when the ledger holds it; else this root's own.
     */
    private static BranchName checkedChain(GitStore git, MemorydConfig cfg, BranchName branch) throws IOException {
        BranchName own = branch.onReplica(git.replica());
        if (git.head() == null) {
            return own;
        }
        return LedgerTrailers.ledgerHeadAt(git, git.head(), branch.value())
                .map(LedgerTrailers.RecordedHead::chain)
                .filter(c -> Files.isDirectory(cfg.ledgerDir().resolve(c.value())))
                .orElse(own);
    }

    /** Rebuilds every file from the ledger and compares it with the working tree ({@link ReplayCheck}). */
    public ReplayCheck.ReplayReport verify(LongConsumer progress) throws IOException {
        return ReplayCheck.run(rooms.writer, view.tree(), cfg, progress); // no writer thread runs: nothing moves
    }

    @Override
    public void close() {
        rooms.writer.close();
        rooms.chunks.close();
        ledger.close();
        view.close();
    }
}
