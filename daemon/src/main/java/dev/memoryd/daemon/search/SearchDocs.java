package dev.memoryd.daemon.search;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.grammar.slices.JsonlBody;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;

/**
 * The search index's Lucene documents: their fields, and the values read from a slice for them
 * (its timestamps, the string values of its JSON).
 *
 * <p>Stateless; safe from any thread.
 */
final class SearchDocs {
    /** The provenance source of a document holding only the rows recorded with that source. */
    static final String SOURCE = "source";
    /** Marks those documents, which an unfiltered search leaves out (their words are in the slice's own). */
    static final String BY_SOURCE = "by_source";

    /** The field naming a memory section's document: its path and its place among the file's sections. */
    static final String SECTION_KEY = "section_key";

    static String sectionKey(String rel, int place) {
        return rel + "#" + place;
    }

    private SearchDocs() {}

    static String newestRow(String body, String fallback) {
        Instant newest = null;
        for (JsonlBody.Row r : JsonlBody.rows(body)) {
            if (r.createdAt() != null && (newest == null || r.createdAt().isAfter(newest))) {
                newest = r.createdAt();
            }
        }
        return newest == null ? fallback : newest.toString();
    }

    static String updated(JsonNode slice) {
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

    static void strings(JsonNode n, StringBuilder out) {
        if (n.isTextual()) {
            out.append(n.asText()).append('\n');
        } else if (n.isContainerNode()) {
            n.forEach(c -> strings(c, out));
        }
    }

    static Document doc(
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
}
