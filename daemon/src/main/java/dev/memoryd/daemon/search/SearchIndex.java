package dev.memoryd.daemon.search;

import dev.memoryd.grammar.slices.Staleness;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;

/**
 * Full-text search (Lucene) over every memory-file section and every {@code .slices/*.slice}
 * (names, titles, summaries and every string value of JSONL rows; for a substrate chunk, its name
 * and every string value of its body). Each hit names its chunk ({@code <slice id>#<anchor>} for
 * a memory section, the chunk id for a declared chunk). The index is derived state:
 * built from the working tree at start, kept in memory, and updated after every published batch
 * from the paths its events touched (in batch order, on its own thread); {@link #search} first
 * re-indexes what was published before it, so a search after an acknowledged write sees it
 * (updates otherwise wait {@value #COALESCE_MS} ms and merge). A memory file is indexed as one
 * document per section, and an update re-indexes only the sections whose text (or the file's id or
 * title) changed: analysing a whole large file again for a change to one section was most of the
 * daemon's CPU on a write. The file's {@code last_updated}, which every write changes, is kept
 * beside the index rather than in each section's document. Hits carry their file, section, slice
 * id, branch and FRESH/STALE age. Thread-safe: the index changes under this object's lock, from
 * the constructor and the update thread.
 *
 * <p>Putting files into the index is {@link FileIndexer}'s job, the documents' fields
 * {@link SearchDocs}', parsing a query {@link SearchQueries}'.
 */
public final class SearchIndex implements Consumer<List<Event>>, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SearchIndex.class.getName());

    private final String branch;
    private final java.time.Duration halfLife;
    private final Directory dir = new ByteBuffersDirectory();
    private final StandardAnalyzer analyzer = new StandardAnalyzer();
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final ScheduledExecutorService updates = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "memoryd-search-index");
        t.setDaemon(true);
        return t;
    });

    /** The files and what was indexed of them. */
    private final FileIndexer files;

    public SearchIndex(Path root, String branch, java.time.Duration halfLife) throws IOException {
        this(root, branch, halfLife, null);
    }

    private SearchIndex(Path root, String branch, java.time.Duration halfLife, java.util.Map<String, String> snapshot)
            throws IOException {
        this.branch = branch;
        this.halfLife = halfLife;
        this.writer = new IndexWriter(dir, new IndexWriterConfig(analyzer));
        this.files = new FileIndexer(writer, root, snapshot);
        rebuild();
        this.searchers = new SearcherManager(writer, null);
    }

    /** Drops everything and indexes the working tree again. */
    public synchronized void rebuild() throws IOException {
        writer.deleteAll();
        files.clear();
        for (String rel : files.files()) {
            files.index(rel);
        }
        writer.commit();
    }

    /**
     * Searches the given files (a commit's memory files and slices, by path) as the index would
     * the working tree: for {@code search} with {@code at} or another branch. Builds a throw-away
     * in-memory index, so it costs an indexing of those files per call.
     */
    public static List<SearchHit> searchSnapshot(
            java.util.Map<String, String> files,
            String branch,
            java.time.Duration halfLife,
            String q,
            int limit,
            Instant now,
            String source)
            throws IOException, BadQuery, InterruptedException {
        try (SearchIndex s = new SearchIndex(null, branch, halfLife, new java.util.TreeMap<>(files))) {
            return s.search(q, limit, now, source);
        }
    }

    /**
     * An index of the given files alone (a commit's memory files and slices, by path), built once
     * and kept by the caller for as many searches as it likes; its hits name {@code branch}.
     */
    public static SearchIndex ofSnapshot(
            java.util.Map<String, String> files, String branch, java.time.Duration halfLife) throws IOException {
        return new SearchIndex(null, branch, halfLife, new java.util.TreeMap<>(files));
    }

    /** Re-indexes the files a batch touched. Runs on the writer thread: only queues the work. */
    @Override
    public void accept(List<Event> events) {
        Set<String> paths = new LinkedHashSet<>();
        for (Event e : events) {
            paths.addAll(dev.memoryd.daemon.write.EventFiles.touched(e));
        }
        if (paths.isEmpty()) {
            return;
        }
        pending.addAll(paths);
        // One update, a moment later, takes every path waiting when it runs: batches' updates of the
        // same files merge instead of each re-indexing them (re-indexing after every write was, for
        // one writer, about a fifth of the daemon's CPU besides the JIT, competing with the next
        // write). A file is read when indexed, so the merged update indexes its latest text, as the
        // last of the separate ones would have; a search first drains what waits (see search).
        if (drainQueued.compareAndSet(false, true)) {
            updates.schedule(this::drain, COALESCE_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** How long published paths wait for more before they are re-indexed. */
    private static final long COALESCE_MS = 50;

    /** Paths published but not yet re-indexed, in publication order. */
    private final Set<String> pending = java.util.Collections.synchronizedSet(new LinkedHashSet<>());

    private final java.util.concurrent.atomic.AtomicBoolean drainQueued =
            new java.util.concurrent.atomic.AtomicBoolean();

    private void drain() {
        drainQueued.set(false); // before taking the paths: a path added from here on queues another drain
        List<String> paths;
        synchronized (pending) {
            paths = new ArrayList<>(pending);
            pending.clear();
        }
        if (!paths.isEmpty()) {
            reindex(paths);
        }
    }

    private synchronized void reindex(Collection<String> paths) {
        try {
            for (String p : paths) {
                files.update(p);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "search index update failed for " + paths + "; rebuilding", e);
            try {
                rebuild();
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
    }

    /** Thrown for a query Lucene cannot parse; the message says where. */
    public static final class BadQuery extends Exception {
        BadQuery(String msg, Throwable cause) {
            super(msg, cause);
        }
    }

    /** Ranked hits for a query in Lucene's classic syntax, each with its staleness as of {@code now}. */
    public List<SearchHit> search(String q, int limit, Instant now) throws IOException, BadQuery, InterruptedException {
        return search(q, limit, now, null);
    }

    /**
     * As {@link #search(String, int, Instant)}; with {@code source} (not null), only JSONL rows whose
     * {@code _meta.provenance.source} is {@code source} match, one hit per slice, and each hit says
     * {@code source}. Memory sections and chunks keep their provenance in the ledger, not in their
     * text, so a filtered search does not find them.
     */
    public List<SearchHit> search(String q, int limit, Instant now, String source)
            throws IOException, BadQuery, InterruptedException {
        try {
            updates.submit(this::drain).get(30, TimeUnit.SECONDS); // what was published before us, indexed first
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("search index update did not finish", e);
        }
        Query query = SearchQueries.parse(q, source, analyzer);
        searchers.maybeRefreshBlocking();
        IndexSearcher s = searchers.acquire();
        try {
            TopDocs top;
            try {
                top = s.search(query, limit);
            } catch (IndexSearcher.TooManyClauses
                    | org.apache.lucene.util.automaton.TooComplexToDeterminizeException e) {
                throw new BadQuery(
                        "query too complex: it expands to more than " + IndexSearcher.getMaxClauseCount()
                                + " terms (use fewer wildcards or fuzzy terms)",
                        e);
            }
            List<SearchHit> out = new ArrayList<>();
            for (ScoreDoc sd : top.scoreDocs) {
                Document d = s.storedFields().document(sd.doc);
                String text = d.get("text");
                String updated = d.get("section") != null ? files.updatedOf(d.get("path")) : d.get("updated");
                out.add(new SearchHit(
                        d.get("path"),
                        d.get("section"),
                        d.get("anchor"),
                        d.get("slice_id"),
                        d.get("chunk"),
                        d.get("title"),
                        Optional.ofNullable(d.get(SearchDocs.SOURCE)),
                        branch,
                        Math.round(sd.score * 1000) / 1000.0,
                        text.length() > 160 ? text.substring(0, 160) + "..." : text,
                        Optional.ofNullable(updated).map(u -> Staleness.time(Instant.parse(u), now, halfLife)),
                        null));
            }
            return out;
        } finally {
            searchers.release(s);
        }
    }

    @Override
    public void close() throws IOException {
        updates.shutdown();
        try {
            updates.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        searchers.close();
        writer.close();
        dir.close();
    }
}
