package dev.memoryd.daemon.substrate;

import dev.memoryd.daemon.events.DeclarePayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.layout.Utf8;
import dev.memoryd.daemon.write.EventFiles;
import dev.memoryd.grammar.slices.SliceFile;
import dev.memoryd.grammar.substrate.ChunkGraph;
import dev.memoryd.grammar.substrate.ChunkRecord;
import dev.memoryd.grammar.substrate.MemoryChunks;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The served root's two chunk graphs, the writer's and the read graph, built from the working
 * tree at start ({@link #load}) and kept up to date with the batches the writer publishes
 * ({@link #publish}).
 *
 * <p><b>Thread-safety and ordering:</b> the writer's graph is touched on the writer thread and on
 * the substrate thread ({@code memoryd-substrate}), which publishes batches one at a time in the
 * order they were handed over; a declaration first waits for the batches before it
 * ({@link #awaitPublished}). The read graph changes only under the write lock, when a batch is
 * published, so a read ({@link #read}) never sees a declaration that is not yet durable.
 */
final class PublishedGraphs {
    private static final Logger LOG = Logger.getLogger(ChunkStore.class.getName());

    /** A read of the read graph. */
    interface Read<T> {
        T apply(ChunkGraph readGraph) throws IOException;
    }

    private final Path root;
    /**
     * Declarations validate against it on the writer thread, batches are published into it on the
     * substrate thread; a declaration first waits for the batches before it ({@link #awaitPublished}).
     */
    private final ChunkGraph writerGraph = new ChunkGraph();

    private final ChunkGraph readGraph = new ChunkGraph();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** Memory file → its slice id, and → the ids derived from it. Substrate thread only. */
    private final Map<String, String> sliceIdByPath = new HashMap<>();

    private final Map<String, Set<String>> derivedByPath = new HashMap<>();
    private volatile boolean loaded;
    /** Publishes batches into both graphs, in order, off the writer thread. */
    private final ExecutorService publisher = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "memoryd-substrate");
        t.setDaemon(true);
        return t;
    });

    private volatile Future<?> lastPublish = CompletableFuture.completedFuture(null);

    PublishedGraphs(Path root) {
        this.root = root;
    }

    /** The writer's graph: writer thread only, after {@link #awaitPublished}. */
    ChunkGraph writerGraph() {
        return writerGraph;
    }

    /** Builds both graphs from the working tree; call after recovery, before the writer starts. */
    void load() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        for (String rel : RootLayout.contentFilesOnDisk(root)) {
            readText(rel).ifPresent(t -> files.put(rel, t));
        }
        List<ChunkRecord> all = GraphBuilder.build(files, sliceIdByPath, derivedByPath);
        lock.writeLock().lock();
        try {
            for (ChunkRecord r : all) {
                writerGraph.put(r);
                readGraph.put(r);
            }
        } finally {
            lock.writeLock().unlock();
        }
        loaded = true;
    }

    /** Hands a published batch to the substrate thread, which puts it into both graphs. Writer thread. */
    void publish(List<Event> events) {
        if (!loaded) {
            return; // recovery runs before load, which then reads the recovered files
        }
        lastPublish = publisher.submit(() -> {
            try {
                apply(events);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "the chunk graph missed a batch; a restart rebuilds it from the files", e);
                throw e;
            }
        });
    }

    /** Waits until every batch published so far is in both graphs (tasks run in order on one thread). */
    void awaitPublished() {
        try {
            lastPublish.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the chunk graph", e);
        } catch (ExecutionException e) {
            // logged where it happened; the graphs hold what the failed batch got to
        }
    }

    /** Runs {@code fn} on the read graph once every batch published so far is in it. */
    <T> T read(Read<T> fn) throws IOException {
        awaitPublished();
        lock.readLock().lock();
        try {
            return fn.apply(readGraph);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Chunk count of the read graph, once every batch published so far is in it. */
    int size() {
        awaitPublished();
        lock.readLock().lock();
        try {
            return readGraph.size();
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Stops the substrate thread after what is queued. */
    void close() {
        publisher.shutdown();
        try {
            publisher.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One batch into both graphs; memory files it touched are derived again. Substrate thread. */
    private void apply(List<Event> events) {
        Set<String> memoryFiles = new LinkedHashSet<>();
        Set<String> chunkFiles = new LinkedHashSet<>(); // a merge's: chunks declared on another branch or replica
        List<DeclarePayload> declared = new ArrayList<>();
        for (Event e : events) {
            if (ChunkStore.OP_DECLARE.equals(e.op())) {
                declared.add(EventPayloads.declare(e)
                        .orElseThrow(() ->
                                new IllegalStateException("declare event " + e.eventId() + " has no chunk's payload")));
            } else {
                for (String p : EventFiles.touched(e)) {
                    if (RootLayout.isMemoryFile(p)) {
                        memoryFiles.add(p);
                    } else if (RootLayout.isChunkFile(p)) {
                        chunkFiles.add(p);
                    }
                }
            }
        }
        if (declared.isEmpty() && memoryFiles.isEmpty() && chunkFiles.isEmpty()) {
            return;
        }
        Map<String, String> mergedTexts = new LinkedHashMap<>();
        chunkFiles.forEach(p -> mergedTexts.put(p, readText(p).orElse(null)));
        // Gone: removed on the other side, or not a chunk file any more.
        MergeCheck.Changes merged = MergeCheck.changes(mergedTexts);
        List<ChunkRecord> mergedLive = merged.put();
        Set<String> mergedGone = merged.removed();
        mergedGone.forEach(writerGraph::remove);
        mergedLive.forEach(writerGraph::put);
        Map<String, List<ChunkRecord>> derived = new LinkedHashMap<>();
        Map<String, Set<String>> gone = new HashMap<>();
        // Each file read once: a large memory file written again and again is most of this thread's work.
        Map<String, Optional<String>> texts = new LinkedHashMap<>();
        for (String p : memoryFiles) {
            Optional<String> text = readText(p);
            texts.put(p, text);
            text.flatMap(t -> SliceFile.parse(t).slice())
                    .map(s -> s.path("id").asText(null))
                    .ifPresent(id -> sliceIdByPath.put(p, id));
        }
        for (String p : memoryFiles) {
            List<ChunkRecord> rs = texts.get(p)
                    .map(t -> MemoryChunks.derive(
                            p, t, x -> Optional.ofNullable(sliceIdByPath.get(x)), PublishedGraphs.this::keptText))
                    .orElse(List.of());
            Set<String> old = new HashSet<>(derivedByPath.getOrDefault(p, Set.of()));
            old.removeAll(GraphBuilder.ids(rs));
            gone.put(p, old);
            derivedByPath.put(p, GraphBuilder.ids(rs));
            derived.put(p, rs);
        }
        // The writer's graph already holds declarations (applied when validated); memory files are new to both.
        for (String p : memoryFiles) {
            gone.get(p).forEach(writerGraph::remove);
            derived.get(p).forEach(writerGraph::put);
        }
        lock.writeLock().lock();
        try {
            mergedGone.forEach(readGraph::remove);
            mergedLive.forEach(readGraph::put);
            for (DeclarePayload payload : declared) {
                if (payload instanceof DeclarePayload.Put put) {
                    readGraph.put(put.chunk());
                } else {
                    readGraph.remove(payload.chunkId());
                }
            }
            for (String p : memoryFiles) {
                gone.get(p).forEach(readGraph::remove);
                derived.get(p).forEach(readGraph::put);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The text a section's chunk holds in the writer's graph (null: none): substrate thread. */
    private String keptText(String chunkId) {
        dev.memoryd.grammar.substrate.Chunk c = writerGraph.chunk(chunkId);
        return c == null ? null : c.body().path("text").textValue();
    }

    /**
     * A content file's text; empty when it is not a regular file or not UTF-8 (then it stands for
     * nothing in the graphs, never for some other text; lint and the drift queue name it).
     */
    private Optional<String> readText(String rel) {
        try {
            Path f = root.resolve(rel);
            return Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                    ? Optional.of(Utf8.read(f, rel))
                    : Optional.empty();
        } catch (Utf8.NotUtf8 e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
