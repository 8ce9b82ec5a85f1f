package dev.memoryd.jcs;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializable;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;

/**
 * A JSON value together with its RFC 8785 form, computed once: a value that is written both on
 * its own (a line of a file) and inside a larger canonical document (a ledger line's payload) is
 * not canonicalised twice. Put in a tree with {@link #asNode()}; {@link Jcs} then emits {@link
 * #text()} verbatim where the value stands, which is byte-identical to canonicalising the value
 * there (JCS of a member's value does not depend on its surroundings), and Jackson writes the same
 * text. {@link #unwrap} gives readers of such a tree the value as a plain tree again.
 *
 * <p>The text is only ever made by {@link Jcs} from the value, so it is canonical and has no lone
 * surrogate. Immutable as long as nobody mutates {@link #tree()} (it is not copied); thread-safe.
 */
public final class CanonicalValue extends JsonSerializable.Base {
    private final JsonNode tree;
    private final String text;

    private CanonicalValue(JsonNode tree, String text) {
        this.tree = tree;
        this.text = text;
    }

    /**
     * Canonicalises {@code value} (kept by reference, not copied: do not mutate it afterwards).
     *
     * @throws IllegalArgumentException what {@link Jcs#canonicalize} throws for it
     */
    public static CanonicalValue of(JsonNode value) {
        return new CanonicalValue(value, Jcs.canonicalize(value));
    }

    /** The value as given. */
    public JsonNode tree() {
        return tree;
    }

    /** Its RFC 8785 form. */
    public String text() {
        return text;
    }

    /** A node standing for this value in a tree (a POJO node; see {@link #unwrap}). */
    public JsonNode asNode() {
        return new POJONode(this);
    }

    /** The value {@code node} stands for when it was made by {@link #asNode()}, else {@code node} itself. */
    public static JsonNode unwrap(JsonNode node) {
        CanonicalValue c = in(node);
        return c == null ? node : c.tree;
    }

    /**
     * The canonical value {@code node} stands for (the instance given to {@link #asNode()}, which
     * copies of the tree keep: Jackson's value nodes copy as themselves), or null when it is not such
     * a node.
     */
    public static CanonicalValue in(JsonNode node) {
        return node instanceof POJONode p && p.getPojo() instanceof CanonicalValue c ? c : null;
    }

    @Override
    public void serialize(JsonGenerator gen, SerializerProvider serializers) throws IOException {
        gen.writeRawValue(text);
    }

    @Override
    public void serializeWithType(JsonGenerator gen, SerializerProvider serializers, TypeSerializer typeSer)
            throws IOException {
        serialize(gen, serializers);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CanonicalValue c && c.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
