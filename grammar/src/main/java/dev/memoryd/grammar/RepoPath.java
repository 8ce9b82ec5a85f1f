package dev.memoryd.grammar;

/**
 * A repository-relative file path, validated on construction so that no caller can
 * address anything outside the memory tree.
 *
 * <p>Contract: {@code value} is non-empty, at most {@value #MAX_LENGTH} chars,
 * {@code /}-separated, has no leading {@code /}, no backslash, no empty, {@code .} or
 * {@code ..} segment, no segment longer than {@value #MAX_SEGMENT_BYTES} bytes in UTF-8 (no
 * file system holds a longer file name), no NUL or other control character, no lone surrogate
 * (it has no UTF-8 form, so no file name), and does not start with the
 * reserved directories {@code .git} or {@code .memoryd}. Violations throw
 * {@link IllegalArgumentException} naming the exact problem.
 */
public record RepoPath(String value) {

    /** Longest accepted path, in chars. */
    public static final int MAX_LENGTH = 4096;

    /** Longest accepted segment, in UTF-8 bytes. */
    public static final int MAX_SEGMENT_BYTES = 255;

    public RepoPath {
        if (value == null) {
            throw new IllegalArgumentException("path must not be null");
        }
        if (value.isEmpty()) {
            throw new IllegalArgumentException("path must not be empty");
        }
        if (value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("path is longer than " + MAX_LENGTH + " chars");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            // Control chars (incl. NUL) can truncate paths in native calls or hide in logs.
            if (c < 0x20 || c == 0x7f) {
                throw new IllegalArgumentException(
                        "path contains control character U+%04X at index %d".formatted((int) c, i));
            }
            if (c == '\\') {
                throw new IllegalArgumentException("path contains a backslash at index " + i + "; use '/'");
            }
        }
        String malformed = TextRules.malformed(value);
        if (malformed != null) {
            throw new IllegalArgumentException("path " + malformed);
        }
        if (value.startsWith("/")) {
            throw new IllegalArgumentException("path must be relative, not start with '/': " + value);
        }
        String[] segments = value.split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            String s = segments[i];
            if (s.isEmpty()) {
                throw new IllegalArgumentException("path has an empty segment at position " + i + ": " + value);
            }
            if (s.equals(".") || s.equals("..")) {
                throw new IllegalArgumentException("path has a '" + s + "' segment at position " + i + ": " + value);
            }
            if (s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
                throw new IllegalArgumentException(
                        "path segment " + i + " is longer than " + MAX_SEGMENT_BYTES + " bytes in UTF-8");
            }
        }
        if (segments[0].equals(".git") || segments[0].equals(".memoryd")) {
            throw new IllegalArgumentException("path is under the reserved directory " + segments[0] + ": " + value);
        }
    }

    /** Validating factory, same as the constructor. */
    public static RepoPath of(String value) {
        return new RepoPath(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
