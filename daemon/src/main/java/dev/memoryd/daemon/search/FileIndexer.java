package dev.memoryd.daemon.search;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.layout.Utf8;
import dev.memoryd.grammar.MemoryDocument;
import dev.memoryd.grammar.slices.JsonlBody;
import dev.memoryd.grammar.slices.SliceFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.Term;

/**
 * Puts files into the search index's {@link IndexWriter}: a memory file as one document per
 * section, re-indexing only the sections whose text (or the file's id or title) changed; a slice
 * or chunk file as one document (plus one per provenance source of a JSONL slice's rows). Files
 * are read from the working tree, or from the texts of a commit's tree.
 *
 * <p><b>Thread-safety:</b> every call but {@link #updatedOf} runs under the owning
 * {@link SearchIndex}'s lock; {@link #updatedOf} reads a concurrent map without it. Nothing is
 * committed here: the owner commits or refreshes.
 */
final class FileIndexer {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final IndexWriter writer;
    /** The memory root, or null when {@link #snapshot} holds the files. */
    private final Path root;
    /** Texts by path when this index is of a commit's tree; null: the working tree. */
    private final Map<String, String> snapshot;

    FileIndexer(IndexWriter writer, Path root, Map<String, String> snapshot) {
        this.writer = writer;
        this.root = root;
        this.snapshot = snapshot;
    }

    /** Every file to index. */
    List<String> files() throws IOException {
        if (snapshot != null) {
            return new ArrayList<>(snapshot.keySet());
        }
        return RootLayout.contentFilesOnDisk(root);
    }

    /** Forgets what was indexed, after the writer dropped every document. */
    void clear() {
        memorySections.clear();
        memoryUpdated.clear();
    }

    /** Indexes {@code p} again: only its changed sections when it is a memory file indexed before. */
    void update(String p) throws IOException {
        if (memorySections.containsKey(p)) {
            reindexMemory(p); // only its changed sections
        } else {
            writer.deleteDocuments(new Term("path", p));
            index(p);
        }
    }

    /** A memory file's {@code last_updated}, or null. Safe without the owner's lock. */
    String updatedOf(String path) {
        return memoryUpdated.get(path);
    }

    /**
     * One memory section as indexed, its body as written: two alike index the same (the body is
     * made canonical only for a section indexed again, which spares splitting a large file's
     * unchanged sections into lines on every write).
     */
    private record IndexedSection(String id, String title, String heading, String anchor, String body) {}

    /** The sections indexed for each memory file, in file order; a document's key is its file and place. */
    private final Map<String, List<IndexedSection>> memorySections = new java.util.HashMap<>();

    /** Each memory file's {@code last_updated} (absent: none), read by searches without the lock. */
    private final Map<String, String> memoryUpdated = new java.util.concurrent.ConcurrentHashMap<>();

    /** The file's text, or null when there is none (removed, not a regular file, or not UTF-8). */
    private String read(String rel) throws IOException {
        if (snapshot != null) {
            return snapshot.get(rel);
        }
        Path f = root.resolve(rel);
        if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        try {
            return Utf8.read(f, rel);
        } catch (Utf8.NotUtf8 e) {
            return null; // not indexed as some other text; lint and the drift queue name the file
        }
    }

    /** Indexes a file not in the index (its documents were deleted, or there are none). */
    void index(String rel) throws IOException {
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
        String updated = slice.map(SearchDocs::updated).orElse(null);
        if (slice.isPresent() && dev.memoryd.grammar.substrate.ChunkFile.isChunk(slice.get())) {
            indexChunk(rel, slice.get(), sf, updated);
        } else {
            StringBuilder all = new StringBuilder();
            slice.ifPresent(s -> all.append(s.path("summary").asText("")).append('\n'));
            String type = slice.map(s -> s.path("body").path("type").asText("")).orElse("");
            Map<String, StringBuilder> bySource = new java.util.TreeMap<>();
            if (type.equals("conversation")) {
                RowStrings.append(sf.body(), all);
            } else if (type.equals("jsonl")) {
                for (JsonlBody.Line l : JsonlBody.lines(sf.body())) {
                    if (l.node() != null) {
                        SearchDocs.strings(l.node(), all);
                        String src = l.node()
                                .path("_meta")
                                .path("provenance")
                                .path("source")
                                .asText(null);
                        if (src != null) {
                            SearchDocs.strings(l.node(), bySource.computeIfAbsent(src, k -> new StringBuilder()));
                        }
                    }
                }
                updated = SearchDocs.newestRow(sf.body(), updated);
            } else if (!type.equals("none")) {
                all.append(sf.body()); // a pointer's payload is elsewhere and never read
            }
            writer.addDocument(SearchDocs.doc(rel, id, title, null, null, all.toString(), updated, null));
            for (java.util.Map.Entry<String, StringBuilder> e : bySource.entrySet()) {
                // The rows of one provenance source, for a search filtered by it (and only then).
                Document d =
                        SearchDocs.doc(rel, id, title, null, null, e.getValue().toString(), updated, null);
                d.add(new StringField(SearchDocs.SOURCE, e.getKey(), Field.Store.YES));
                d.add(new StringField(SearchDocs.BY_SOURCE, "1", Field.Store.NO));
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
            IndexedSection was = now.size() < before.size() ? before.get(now.size()) : null;
            // A section as it was indexed is kept, told in place: its body is not copied again.
            boolean same = was != null
                    && java.util.Objects.equals(was.id(), id)
                    && was.title().equals(title)
                    && was.heading().equals(s.heading())
                    && java.util.Objects.equals(was.anchor(), s.anchor())
                    && s.bodyIs(text, was.body());
            now.add(same ? was : new IndexedSection(id, title, s.heading(), s.anchor(), s.body(text)));
        }
        slice.map(SearchDocs::updated).ifPresentOrElse(u -> memoryUpdated.put(rel, u), () -> memoryUpdated.remove(rel));
        for (int i = 0; i < Math.max(now.size(), before.size()); i++) {
            IndexedSection was = i < before.size() ? before.get(i) : null;
            IndexedSection is = i < now.size() ? now.get(i) : null;
            if (java.util.Objects.equals(was, is)) {
                continue;
            }
            if (was != null) {
                writer.deleteDocuments(new Term(SearchDocs.SECTION_KEY, SearchDocs.sectionKey(rel, i)));
            }
            if (is != null) {
                Document d = SearchDocs.doc(
                        rel,
                        is.id(),
                        is.title(),
                        is.heading(),
                        is.anchor(),
                        is.heading() + "\n" + MemoryDocument.canonicalize(is.body()),
                        null,
                        is.id() == null || is.anchor() == null ? null : is.id() + "#" + is.anchor());
                d.add(new StringField(SearchDocs.SECTION_KEY, SearchDocs.sectionKey(rel, i), Field.Store.NO));
                writer.addDocument(d);
            }
        }
        memorySections.put(rel, List.copyOf(now));
    }

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
                SearchDocs.strings(body, all);
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            all.append(sf.body()); // hand-edited into non-JSON: still findable by its words
        }
        writer.addDocument(SearchDocs.doc(rel, id, name, null, null, all.toString(), updated, id));
    }
}
