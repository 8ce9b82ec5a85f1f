package dev.memoryd.grammar.slices;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.grammar.frontmatter.Frontmatter;
import java.util.Optional;

/**
 * A {@code .slice} file or memory file split into its frontmatter (with the {@code slice:}
 * namespace) and its body.
 *
 * <p>Contract: {@link #parse} never throws and does no I/O. The frontmatter is the
 * {@code ---} block on the first line (see {@link Frontmatter}); the body is everything
 * after the closing fence, byte for byte. Without a complete frontmatter block the whole
 * text is the body and {@link #slice()} is empty. {@link #slice()} is present only when the
 * frontmatter parsed and holds a {@code slice:} mapping. Immutable and thread-safe.
 */
public final class SliceFile {

    private final String text;
    private final Frontmatter frontmatter;
    private final int bodyStart;

    private SliceFile(String text, Frontmatter frontmatter) {
        this.text = text;
        this.frontmatter = frontmatter;
        this.bodyStart = frontmatter.present() ? frontmatter.end() : 0;
    }

    /** Parses a slice or memory file's text. Never throws. */
    public static SliceFile parse(String text) {
        String t = text == null ? "" : text;
        return new SliceFile(t, Frontmatter.parse(t));
    }

    /** The whole text as given. */
    public String text() {
        return text;
    }

    /** Whether a complete frontmatter block was found (parseable or not). */
    public boolean hasFrontmatter() {
        return frontmatter.present();
    }

    /** The whole parsed frontmatter, if it parsed. */
    public Optional<JsonNode> frontmatter() {
        return Optional.ofNullable(frontmatter.tree());
    }

    /** The {@code slice:} mapping, if the frontmatter parsed and holds one. */
    public Optional<JsonNode> slice() {
        JsonNode fm = frontmatter.tree();
        JsonNode s = fm == null ? null : fm.get("slice");
        return s != null && s.isObject() ? Optional.of(s) : Optional.empty();
    }

    /** Why the frontmatter could not be parsed (unclosed, empty, broken YAML), if so. */
    public Optional<String> frontmatterError() {
        return Optional.ofNullable(frontmatter.error());
    }

    /** Offset in {@link #text()} where the body starts (0 without frontmatter). */
    public int bodyStart() {
        return bodyStart;
    }

    /** The body: the text after the closing frontmatter fence, unchanged. */
    public String body() {
        return text.substring(bodyStart);
    }
}
