package dev.memoryd.daemon;

import dev.memoryd.daemon.branch.Branches;
import dev.memoryd.daemon.conversation.ConversationStore;
import dev.memoryd.daemon.drift.DriftQueue;
import dev.memoryd.daemon.history.SectionIndex;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.locks.SectionLocks;
import dev.memoryd.daemon.peers.Peers;
import dev.memoryd.daemon.promotions.Promotions;
import dev.memoryd.daemon.proposals.ProposalBook;
import dev.memoryd.daemon.refs.RefStore;
import dev.memoryd.daemon.slices.SliceStore;
import dev.memoryd.daemon.slip.SlipRelay;
import dev.memoryd.daemon.substrate.ChunkStore;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.ContentHasher;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.IdGenerator;
import dev.memoryd.ledger.Journal;
import dev.memoryd.ledger.Ledger;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The checked-out branch's writer with every room that records through it (slip, conversations,
 * slices, chunks, drift, proposals, references, section history and locks, promotions), each
 * loaded from the chain and registered as a listener or replayer. Built, not started: a serving
 * root recovers and starts the writer, a check replays on it. Both hold the same rooms, so a
 * replay redoes every kind of event a daemon records.
 */
final class WriterRooms {
    final WritePipeline writer;
    final SlipRelay slip;
    final ConversationStore conversations;
    final SliceStore slices;
    final ChunkStore chunks;
    final DriftQueue drift;
    final ProposalBook proposals;
    final RefStore refs;
    final SectionIndex sections;
    final SectionLocks locks;
    final Promotions promotions;

    /**
     * @param view the root's files and grammar
     * @param chain the chain the writer appends to (or replays)
     * @param own the root's own chain of the checked-out branch, which section history follows
     * @param firstListeners what sees each published batch before the rooms do (a serving root's search index)
     */
    WriterRooms(
            ReadOnlyRoot view,
            Ledger ledger,
            Chain chain,
            Chain own,
            Optional<Journal> journal,
            AtomicReference<ContentHasher> hasher,
            IdGenerator ids,
            Peers peers,
            int promotionMinFiles,
            List<Consumer<List<Event>>> firstListeners)
            throws IOException {
        MemorydConfig cfg = view.config();
        WorkTree tree = view.tree();
        this.writer = new WritePipeline(
                view.grammars(),
                fileStore(tree, cfg.root()),
                view.git(),
                chain,
                text -> hasher.get().hash(text),
                ids,
                cfg.clock(),
                new BranchName(cfg.branch()),
                cfg.maxBatch());
        journal.ifPresent(writer::useJournal);
        // Extensions register before recovery, which may need to redo their events.
        this.slip = new SlipRelay(writer);
        slip.load(chain.read(1));
        this.conversations = new ConversationStore(writer, ids);
        conversations.load(chain.read(1));
        this.slices = new SliceStore(writer, ids, Memoryd.MAX_SLICE_BODY);
        firstListeners.forEach(writer::addListener);
        this.chunks = new ChunkStore(writer, ids, cfg.root(), view.git(), cfg.branch());
        writer.addListener(chunks);
        chunks.mount(peers);
        KeyRotate.registerReplayer(writer, hasher);
        this.drift = new DriftQueue(writer);
        drift.load(chain.read(1));
        writer.addListener(drift);
        writer.setDriftView(drift);
        this.proposals = new ProposalBook(writer);
        proposals.load(chain.read(1));
        writer.addListener(proposals);
        this.refs = new RefStore(writer, ids, cfg.root(), drift);
        this.sections = new SectionIndex(own::head, own::read, cfg.segmentLines());
        this.locks = new SectionLocks(writer);
        this.promotions = new Promotions(
                writer,
                view::grammar,
                () -> memoryFilesOnDisk(cfg.root()),
                p -> {
                    try {
                        return tree.read(p);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                },
                promotionMinFiles);
        Branches.registerReplayers(writer);
        writer.setChains(b -> ledger.branches().contains(b) ? Optional.of(ledger.chain(b)) : Optional.empty());
    }

    private static List<RepoPath> memoryFilesOnDisk(Path root) {
        try {
            return RootLayout.memoryFilesOnDisk(root).stream().map(RepoPath::of).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The working tree as the writer stores files: staged as temp files, then published. */
    private static WritePipeline.FileStore fileStore(WorkTree tree, Path root) {
        return new WritePipeline.FileStore() {
            @Override
            public Optional<String> read(RepoPath p) throws IOException {
                return tree.read(p);
            }

            @Override
            public boolean holds(RepoPath p, Optional<String> text) throws IOException {
                return tree.holds(p, text);
            }

            @Override
            public void writeAll(Map<String, byte[]> files) throws IOException {
                tree.writeAll(files);
            }

            @Override
            public WritePipeline.IoAction stage(Map<String, byte[]> files) throws IOException {
                WorkTree.Staged st = tree.stage(files);
                return st::publish;
            }

            @Override
            public WritePipeline.IoAction stage(
                    Map<String, byte[]> files, Map<String, Optional<String>> expected, Consumer<String> skipped)
                    throws IOException {
                WorkTree.Staged st = tree.stage(files);
                st.precheck(expected);
                return new WritePipeline.IoAction() {
                    @Override
                    public void run() throws IOException {
                        st.publish(expected, skipped, false);
                    }

                    @Override
                    public Map<String, java.nio.file.attribute.FileTime> modified() {
                        return st.modified();
                    }

                    @Override
                    public void settle() throws IOException {
                        st.syncDirs();
                    }

                    @Override
                    public void abort() throws IOException {
                        st.abort();
                    }
                };
            }

            @Override
            public java.util.Set<String> removeIfHolding(Map<String, byte[]> files) throws IOException {
                return tree.removeIfHolding(files);
            }

            @Override
            public Path root() {
                return root;
            }
        };
    }
}
