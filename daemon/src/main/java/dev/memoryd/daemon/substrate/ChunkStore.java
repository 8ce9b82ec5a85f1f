package dev.memoryd.daemon.substrate;

import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.substrate.ChunkFile;
import dev.memoryd.grammar.substrate.ChunkGraph;
import dev.memoryd.grammar.substrate.Declaration;
import dev.memoryd.grammar.substrate.DeclarationCodec;
import dev.memoryd.grammar.substrate.Declare;
import dev.memoryd.grammar.substrate.MemoryChunks;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.IdGenerator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The substrate over one memory root: declared chunks ({@code .slices/<ULID>.slice}, see
 * {@link ChunkFile}) and the chunks memory files stand for ({@link MemoryChunks}), in one graph.
 *
 * <p>Two graphs are kept. The writer's graph is touched only on the writer thread: a
 * {@code declare} validates and applies there, in submission order, so declarations in one batch
 * see each other. The read graph serves {@link #scope} and {@link #traverse}; it changes only when
 * a batch is published (this store is a writer listener), so a read never sees a declaration that
 * is not yet durable. Both are rebuilt from the working tree at start ({@link #load}); a read
 * {@code at} a commit is rebuilt from that commit's tree alone (two are cached).
 *
 * <p>Each changed chunk is one ledger event (op {@code declare}, {@code file_path} its chunk file,
 * payload its whole new record or {@code removed}), so recovery re-renders the files from the
 * payloads without validating again, and the search index re-indexes each file. Thread-safe.
 *
 * <p>This class submits declarations and answers for the substrate; the graphs and their
 * publishing are {@link PublishedGraphs}' job, the reads {@link ChunkReads}', building a graph from
 * files {@link GraphBuilder}'s.
 */
public final class ChunkStore implements Consumer<List<Event>> {
    public static final String OP_DECLARE = "declare";
    public static final int DEFAULT_LIMIT = 50;

    private final WritePipeline writer;
    private final IdGenerator ids;
    private final PublishedGraphs published;
    private final ChunkReads reads;

    public ChunkStore(WritePipeline writer, IdGenerator ids, Path root, GitStore git, String branch) {
        this.writer = writer;
        this.ids = ids;
        this.published = new PublishedGraphs(root);
        this.reads = new ChunkReads(git, branch, published);
        writer.registerReplayer(
                OP_DECLARE, evs -> new Replay(evs.stream().map(Event::payload).toList()));
    }

    /** Lets references name the chunks of {@code peers} (read-only); set before the daemon serves. */
    public void mount(MountedGraphs peers) {
        reads.mount(peers);
    }

    /** Builds both graphs from the working tree; call after recovery, before the writer starts. */
    public void load() throws IOException {
        published.load();
    }

    /**
     * Derives the chunks of a batch's memory files on the substrate thread, off the writer's path
     * (about a fifth of the writer's CPU when it ran there). Readers and the next declaration
     * first wait for what was published before them ({@link #awaitPublished}), so a reply never
     * outruns the graph a caller reads next. Writer thread.
     */
    @Override
    public void accept(List<Event> events) {
        published.publish(events);
    }

    /** Waits until every batch published so far is in both graphs (tasks run in order on one thread). */
    void awaitPublished() {
        published.awaitPublished();
    }

    /** Stops the substrate thread after what is queued. */
    public void close() {
        published.close();
    }

    /**
     * Writer thread only: the first spec rule the writer's graph would break once a merge writes
     * {@code chunkFiles} (path → merged text, null: gone), or null. The graph is left as it was:
     * the merge's files enter it when its batch is published ({@link #accept}), as a restart would
     * read them.
     */
    public Declare.Violation checkMerge(Map<String, String> chunkFiles) {
        published.awaitPublished(); // the batches before this merge, published into the graph off the writer thread
        return MergeCheck.check(published.writerGraph(), chunkFiles);
    }

    /** A submitted declaration: the ids given to its new chunks, and what became of it. */
    public record Submitted(List<Created> created, CompletableFuture<WriteOutcome> outcome) {}

    public record Created(String ref, String id, String path) {}

    /** A fresh chunk id (a ULID), for the edge that parses a declaration's new chunks ({@link DeclarationCodec}). */
    public String newChunkId() {
        return ids.next().value();
    }

    /**
     * Submits one parsed declaration (one commit, or nothing). A declaration that changes,
     * places onto or removes a mounted peer's chunk completes at once with {@code prohibited};
     * spec failures with {@code spec_violation}. {@code provenance} null: none recorded.
     */
    public Submitted declare(
            Declaration d, String rationale, String actor, dev.memoryd.daemon.write.Provenance provenance) {
        Failure onPeer = PeerReferences.check(d, reads.mounted());
        if (onPeer != null) {
            return new Submitted(List.of(), CompletableFuture.completedFuture(new WriteOutcome.Rejected(-1, onPeer)));
        }
        List<Created> created = new ArrayList<>();
        for (Declaration.ChunkDecl c : d.chunks()) {
            if (c.create()) {
                created.add(new Created(c.ref(), c.id(), ".slices/" + c.id() + ".slice"));
            }
        }
        return new Submitted(
                created,
                writer.submit(WriteRequest.of(
                                new DeclareMutation(published.writerGraph(), d, published::awaitPublished),
                                rationale == null ? "declare" : rationale,
                                actor)
                        .withProvenance(provenance)));
    }

    /** A {@code scope} read: the chunks on every scope and on none of {@code minus}; a page from the tail. */
    public record ScopeQuery(List<String> scopes, List<String> minus, String at, int limit, int offset) {}

    public Outcome<ScopeResult> scope(ScopeQuery q) throws IOException {
        return reads.scope(q);
    }

    /**
     * Follows connections from a chunk: the chunks placed on it, the other scopes those are placed
     * on (connections), then the same from each connection, up to {@code depth} levels.
     */
    public Outcome<TraverseResult> traverse(String from, int depth, String at, int limit) throws IOException {
        return reads.traverse(from, depth, at, limit);
    }

    /**
     * The stale derived chunks under {@code under} (a derivation scope such as
     * {@code summaries/opus-4.6}): every chunk placed on it or, transitively, on one of its
     * instances, whose body carries {@code source_commit}, judged by {@link DerivedStaleness}.
     */
    public Outcome<StaleResult> stale(String under, String at, int limit) throws IOException {
        return reads.stale(under, at, limit);
    }

    /** The chunk graph of {@code commit}'s tree in {@code repo} alone: its memory files and chunk files. */
    public static ChunkGraph graphOf(GitStore repo, ObjectId commit) throws IOException {
        return GraphBuilder.graphOf(repo, commit);
    }

    /** The chunk graph of the given memory files and chunk files (texts by path) alone. */
    public static ChunkGraph graphOf(Map<String, String> files) {
        return GraphBuilder.graphOf(files);
    }

    /** Chunk count of the read graph (for ping and tests). */
    public int size() {
        return published.size();
    }
}
