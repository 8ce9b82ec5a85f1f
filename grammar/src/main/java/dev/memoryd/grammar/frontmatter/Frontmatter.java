package dev.memoryd.grammar.frontmatter;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * The YAML frontmatter block of a memory file or {@code .slice} file, split off the text
 * and parsed with Jackson YAML. Shared by {@link MemoryDocument} and
 * {@link dev.memoryd.grammar.slices.SliceFile}.
 *
 * <p>Contract: {@link #parse} never throws. A block opens with {@code ---} on the first
 * line and closes at the next line that is exactly {@code ---} or {@code ...}
 * ({@code \r\n} allowed). Without a complete block, {@link #end()} is -1 and
 * {@link #tree()} is null; {@link #error()} is non-null when the block is unclosed, empty
 * or not valid YAML. Immutable; the tree is shared between equal blocks and must not be mutated.
 *
 * @param end       offset just after the closing fence line, or -1 when there is no complete block
 * @param tree      the parsed YAML, or null when absent or broken
 * @param error     why the block could not be parsed, or null
 * @param errorLine 1-based line of the error in the whole text (1 if unknown)
 */
public record Frontmatter(int end, JsonNode tree, String error, int errorLine) {

    private static final YAMLMapper YAML = new YAMLMapper();

    /** The YAML style memoryd writes frontmatter in (slice files, chunk files, pointers). Thread-safe. */
    public static final YAMLMapper WRITER = YAMLMapper.builder()
            .disable(com.fasterxml.jackson.dataformat.yaml.YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(com.fasterxml.jackson.dataformat.yaml.YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(com.fasterxml.jackson.dataformat.yaml.YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(com.fasterxml.jackson.dataformat.yaml.YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .build();

    /**
     * End offset (after the closing fence line) of a frontmatter block that opens on the first
     * line with {@code ---}, or -1 if the text has no complete frontmatter.
     */
    public static int fenceEnd(String text) {
        if (!(text.startsWith("---\n") || text.startsWith("---\r\n"))) {
            return -1;
        }
        int pos = text.indexOf('\n') + 1;
        while (pos < text.length()) {
            int e = text.indexOf('\n', pos);
            int lineEnd = e < 0 ? text.length() : e + 1;
            String line = stripLineEnd(text.substring(pos, lineEnd));
            if (line.equals("---") || line.equals("...")) {
                return lineEnd;
            }
            pos = lineEnd;
        }
        return -1;
    }

    private static String stripLineEnd(String s) {
        if (s.endsWith("\r\n")) {
            return s.substring(0, s.length() - 2);
        }
        if (s.endsWith("\n")) {
            return s.substring(0, s.length() - 1);
        }
        return s;
    }

    /** Splits and parses the frontmatter of {@code text}. Never throws. */
    public static Frontmatter parse(String text) {
        String t = text == null ? "" : text;
        int fmEnd = fenceEnd(t);
        if (fmEnd <= 0) {
            String err =
                    t.startsWith("---\n") || t.startsWith("---\r\n") ? "frontmatter has no closing '---' line" : null;
            return new Frontmatter(-1, null, err, 1);
        }
        int contentStart = t.indexOf('\n') + 1;
        int closeLineStart = t.lastIndexOf('\n', fmEnd - 2) + 1;
        String yaml = t.substring(contentStart, closeLineStart);
        synchronized (RECENT) {
            Frontmatter hit = RECENT.get(yaml);
            if (hit != null) {
                return hit.end == fmEnd ? hit : new Frontmatter(fmEnd, hit.tree, hit.error, hit.errorLine);
            }
        }
        Frontmatter f = parseYaml(yaml, fmEnd);
        synchronized (RECENT) {
            RECENT.put(yaml, f);
        }
        return f;
    }

    /**
     * Successive versions of a file share their frontmatter until the write that sets
     * {@code last_updated}, and YAML parsing is the largest cost of parsing a file; the trees
     * handed out are shared and must not be mutated.
     */
    private static final java.util.Map<String, Frontmatter> RECENT = new java.util.LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<String, Frontmatter> e) {
            return size() > 64;
        }
    };

    private static Frontmatter parseYaml(String yaml, int fmEnd) {
        try {
            JsonNode fm = YAML.readTree(yaml);
            if (fm == null || fm.isMissingNode()) {
                return new Frontmatter(fmEnd, null, "frontmatter is empty", 1);
            }
            return new Frontmatter(fmEnd, fm, null, 1);
        } catch (JsonProcessingException | RuntimeException e) {
            String err = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.toString();
            int errLine = 1;
            if (e instanceof JsonProcessingException j
                    && j.getLocation() != null
                    && j.getLocation().getLineNr() > 0) {
                errLine = j.getLocation().getLineNr() + 1;
            }
            return new Frontmatter(fmEnd, null, err, errLine);
        }
    }

    /** Whether the text has a complete (closed) block, parseable or not. */
    public boolean present() {
        return end > 0;
    }
}
