package dev.memoryd.daemon.search;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.grammar.MemoryDocument;
import dev.memoryd.grammar.slices.JsonlBody;
import dev.memoryd.grammar.slices.SliceFile;
import dev.memoryd.grammar.slices.Staleness;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
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
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.MultiFieldQueryParser;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
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
 * the constructor and the update thread. Longer than most classes: building the index, updating
 * it per section and querying it share the Lucene writer, the documents' fields and the section
 * keys, which would otherwise cross class boundaries.
 */
public final class SearchIndex implements Consumer<List<Event>>, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SearchIndex.class.getName());

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private final Path root;
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

    /** Texts by path when this index is of a commit's tree ({@link #searchSnapshot}); null: the working tree. */
    private final java.util.Map<String, String> snapshot;

    public SearchIndex(Path root, String branch, java.time.Duration halfLife) throws IOException {
        this(root, branch, halfLife, null);
    }

    private SearchIndex(Path root, String branch, java.time.Duration halfLife, java.util.Map<String, String> snapshot)
            throws IOException {
        this.root = root;
        this.branch = branch;
        this.halfLife = halfLife;
        this.snapshot = snapshot;
        this.writer = new IndexWriter(dir, new IndexWriterConfig(analyzer));
        rebuild();
        this.searchers = new SearcherManager(writer, null);
    }

    /** Drops everything and indexes the working tree again. */
    public synchronized void rebuild() throws IOException {
        writer.deleteAll();
        memorySections.clear();
        memoryUpdated.clear();
        for (String rel : files()) {
            index(rel);
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

    private List<String> files() throws IOException {
        if (snapshot != null) {
            return new ArrayList<>(snapshot.keySet());
        }
        return RootLayout.contentFilesOnDisk(root);
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
                if (memorySections.containsKey(p)) {
                    reindexMemory(p); // only its changed sections
                } else {
                    writer.deleteDocuments(new Term("path", p));
                    index(p);
                }
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

    /** The file's text, or null when there is none (removed, or not a regular file). */
    private String read(String rel) throws IOException {
        if (snapshot != null) {
            return snapshot.get(rel);
        }
        Path f = root.resolve(rel);
        if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        return Files.readString(f, StandardCharsets.UTF_8);
    }

    /**
     * One memory section as indexed, its body as written: two alike index the same (the body is
     * made canonical only for a section indexed again, which spares splitting a large file's
     * unchanged sections into lines on every write).
     */
    private record IndexedSection(String id, String title, String heading, String anchor, String body) {}

    /** The sections indexed for each memory file, in file order; a document's key is its file and place. */
    private final java.util.Map<String, List<IndexedSection>> memorySections = new java.util.HashMap<>();

    /** Each memory file's {@code last_updated} (absent: none), read by searches without the lock. */
    private final java.util.Map<String, String> memoryUpdated = new java.util.concurrent.ConcurrentHashMap<>();

    /** The field naming a memory section's document: its path and its place among the file's sections. */
    private static final String SECTION_KEY = "section_key";

    private static String sectionKey(String rel, int place) {
        return rel + "#" + place;
    }

    private void index(String rel) throws IOException {
        String text = read(rel);
        if (text == null) {
            return;
        }
        if (rel.endsWith(".md")) {
            indexMemory(rel, text, List.of());
            return;
        }
        SliceFile sf = SliceFile.parse(text);
        Optional<JsonNode> slice = sf.slice();
        String id = slice.map(s -> s.path("id").asText(null)).orElse(null);
        String title = slice.map(s -> s.path("title").asText("")).orElse("");
        String updated = slice.map(SearchIndex::updated).orElse(null);
        if (slice.isPresent() && dev.memoryd.grammar.substrate.ChunkFile.isChunk(slice.get())) {
            indexChunk(rel, slice.get(), sf, updated);
        } else {
            StringBuilder all = new StringBuilder();
            slice.ifPresent(s -> all.append(s.path("summary").asText("")).append('\n'));
            String type = slice.map(s -> s.path("body").path("type").asText("")).orElse("");
            java.util.Map<String, StringBuilder> bySource = new java.util.TreeMap<>();
            if (type.equals("conversation")) {
                RowStrings.append(sf.body(), all);
            } else if (type.equals("jsonl")) {
                for (JsonlBody.Line l : JsonlBody.lines(sf.body())) {
                    if (l.node() != null) {
                        strings(l.node(), all);
                        String src = l.node()
                                .path("_meta")
                                .path("provenance")
                                .path("source")
                                .asText(null);
                        if (src != null) {
                            strings(l.node(), bySource.computeIfAbsent(src, k -> new StringBuilder()));
                        }
                    }
                }
                updated = newestRow(sf.body(), updated);
            } else if (!type.equals("none")) {
                all.append(sf.body()); // a pointer's payload is elsewhere and never read
            }
            writer.addDocument(doc(rel, id, title, null, null, all.toString(), updated, null));
            for (java.util.Map.Entry<String, StringBuilder> e : bySource.entrySet()) {
                // The rows of one provenance source, for a search filtered by it (and only then).
                Document d = doc(rel, id, title, null, null, e.getValue().toString(), updated, null);
                d.add(new StringField(SOURCE, e.getKey(), Field.Store.YES));
                d.add(new StringField(BY_SOURCE, "1", Field.Store.NO));
                writer.addDocument(d);
            }
        }
    }

    /** A memory file indexed before: its sections that changed are indexed again, the others kept. */
    private void reindexMemory(String rel) throws IOException {
        String text = read(rel);
        if (text == null) {
            writer.deleteDocuments(new Term("path", rel));
            memorySections.remove(rel);
            memoryUpdated.remove(rel);
            return;
        }
        indexMemory(rel, text, memorySections.get(rel));
    }

    /**
     * Indexes a memory file's sections; {@code before} (empty when none are indexed) is what was
     * indexed for it last, whose documents are replaced where they differ.
     */
    private void indexMemory(String rel, String text, List<IndexedSection> before) throws IOException {
        Optional<JsonNode> slice = SliceFile.parse(text).slice();
        String id = slice.map(s -> s.path("id").asText(null)).orElse(null);
        String title = slice.map(s -> s.path("title").asText("")).orElse("");
        MemoryDocument doc = MemoryDocument.parse(text);
        List<IndexedSection> now = new ArrayList<>();
        for (MemoryDocument.Section s : doc.h2Sections()) {
            now.add(new IndexedSection(id, title, s.heading(), s.anchor(), s.body(text)));
        }
        slice.map(SearchIndex::updated)
                .ifPresentOrElse(u -> memoryUpdated.put(rel, u), () -> memoryUpdated.remove(rel));
        for (int i = 0; i < Math.max(now.size(), before.size()); i++) {
            IndexedSection was = i < before.size() ? before.get(i) : null;
            IndexedSection is = i < now.size() ? now.get(i) : null;
            if (java.util.Objects.equals(was, is)) {
                continue;
            }
            if (was != null) {
                writer.deleteDocuments(new Term(SECTION_KEY, sectionKey(rel, i)));
            }
            if (is != null) {
                Document d = doc(
                        rel,
                        is.id(),
                        is.title(),
                        is.heading(),
                        is.anchor(),
                        is.heading() + "\n" + MemoryDocument.canonicalize(is.body()),
                        null,
                        is.id() == null || is.anchor() == null ? null : is.id() + "#" + is.anchor());
                d.add(new StringField(SECTION_KEY, sectionKey(rel, i), Field.Store.NO));
                writer.addDocument(d);
            }
        }
        memorySections.put(rel, List.copyOf(now));
    }

    /** The provenance source of a document holding only the rows recorded with that source. */
    private static final String SOURCE = "source";
    /** Marks those documents, which an unfiltered search leaves out (their words are in the slice's own). */
    private static final String BY_SOURCE = "by_source";

    /**
     * A substrate chunk: its name and every string value of its body. A removed chunk's tombstone
     * is not indexed (removal drops the chunk from current reads; the history keeps it).
     */
    private void indexChunk(String rel, JsonNode slice, SliceFile sf, String updated) throws IOException {
        if (slice.path("meta").hasNonNull("removed_at")) {
            return;
        }
        String id = slice.path("id").asText();
        String name = slice.path("meta").path("name").asText("");
        StringBuilder all = new StringBuilder(name).append('\n');
        try {
            JsonNode body = JSON.readTree(sf.body());
            if (body != null) {
                strings(body, all);
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            all.append(sf.body()); // hand-edited into non-JSON: still findable by its words
        }
        writer.addDocument(doc(rel, id, name, null, null, all.toString(), updated, id));
    }

    private static String newestRow(String body, String fallback) {
        Instant newest = null;
        for (JsonlBody.Row r : JsonlBody.rows(body)) {
            if (r.createdAt() != null && (newest == null || r.createdAt().isAfter(newest))) {
                newest = r.createdAt();
            }
        }
        return newest == null ? fallback : newest.toString();
    }

    private static String updated(JsonNode slice) {
        for (String k : new String[] {"last_updated", "created_at"}) {
            String v = slice.path("meta").path(k).asText(null);
            if (v != null) {
                try {
                    return Instant.parse(v).toString();
                } catch (DateTimeParseException e) {
                    // not a timestamp: try the next field
                }
            }
        }
        return null;
    }

    private static void strings(JsonNode n, StringBuilder out) {
        if (n.isTextual()) {
            out.append(n.asText()).append('\n');
        } else if (n.isContainerNode()) {
            n.forEach(c -> strings(c, out));
        }
    }

    private static Document doc(
            String path,
            String id,
            String title,
            String section,
            String anchor,
            String text,
            String updated,
            String chunk) {
        Document d = new Document();
        if (chunk != null) {
            d.add(new StoredField("chunk", chunk));
        }
        d.add(new StringField("path", path, Field.Store.YES));
        if (id != null) {
            d.add(new StringField("slice_id", id, Field.Store.YES));
        }
        d.add(new TextField("title", title, Field.Store.YES));
        if (section != null) {
            d.add(new TextField("section", section, Field.Store.YES));
            d.add(new StoredField("anchor", anchor == null ? "" : anchor));
        }
        d.add(new TextField("text", text, Field.Store.YES));
        if (updated != null) {
            d.add(new StoredField("updated", updated));
        }
        return d;
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
        Query query;
        try {
            MultiFieldQueryParser p = new MultiFieldQueryParser(new String[] {"text", "title", "section"}, analyzer);
            p.setDefaultOperator(QueryParser.Operator.AND);
            query = p.parse(q);
        } catch (ParseException e) {
            throw new BadQuery("cannot parse query: " + e.getMessage().split("\n")[0], e);
        } catch (org.apache.lucene.util.automaton.TooComplexToDeterminizeException | IllegalArgumentException e) {
            // A wildcard or regular expression too complex to compile, or one Lucene's syntax refuses.
            throw new BadQuery(
                    "query too complex: " + e.getMessage().split("\n")[0] + " (use fewer wildcards or a shorter term)",
                    e);
        }
        org.apache.lucene.search.BooleanQuery.Builder b = new org.apache.lucene.search.BooleanQuery.Builder()
                .add(query, org.apache.lucene.search.BooleanClause.Occur.MUST);
        if (source == null) {
            b.add(
                    new org.apache.lucene.search.TermQuery(new Term(BY_SOURCE, "1")),
                    org.apache.lucene.search.BooleanClause.Occur.MUST_NOT);
        } else {
            b.add(
                    new org.apache.lucene.search.TermQuery(new Term(SOURCE, source)),
                    org.apache.lucene.search.BooleanClause.Occur.FILTER);
        }
        query = b.build();
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
                String updated = d.get("section") != null ? memoryUpdated.get(d.get("path")) : d.get("updated");
                out.add(new SearchHit(
                        d.get("path"),
                        d.get("section"),
                        d.get("anchor"),
                        d.get("slice_id"),
                        d.get("chunk"),
                        d.get("title"),
                        Optional.ofNullable(d.get(SOURCE)),
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
