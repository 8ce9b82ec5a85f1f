package dev.memoryd.daemon.layout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The one rule for the text of a memory file: UTF-8, decoded strictly. A file that is not (a save
 * in Latin-1, a stray byte) is never taken for some other text: Java's lenient decoding would put
 * U+FFFD in place of the human's characters, and memoryd would record and write back that text.
 * Stateless and thread-safe.
 */
public final class Utf8 {
    private Utf8() {}

    /** A file's bytes that are not UTF-8: where, and the text with U+FFFD in their place (to show, never to write). */
    public static final class NotUtf8 extends NotMemoryText {
        private static final long serialVersionUID = 1L;
        private final long offset;

        NotUtf8(String path, long offset, String lossy) {
            super(
                    path + " is not valid UTF-8 (byte " + offset
                            + "); memory files are UTF-8: save it as UTF-8 again (the file is left as it is)",
                    lossy);
            this.offset = offset;
        }

        /** The byte offset of the first byte that is not UTF-8. */
        public long offset() {
            return offset;
        }

        /** The text with U+FFFD in place of each malformed sequence. */
        public String lossy() {
            return shown();
        }
    }

    /**
     * The text of file {@code f} ({@code path} names it in the exception): the JDK's own strict read,
     * which decodes the usual all-ASCII or valid file without a decoder's copy; the bytes are looked
     * at again only when they are not UTF-8.
     */
    public static String read(java.nio.file.Path f, String path) throws IOException {
        try {
            return java.nio.file.Files.readString(f, StandardCharsets.UTF_8);
        } catch (CharacterCodingException e) {
            byte[] bytes = java.nio.file.Files.readAllBytes(f);
            return decode(bytes, path); // NotUtf8, unless the file was saved again meanwhile
        }
    }

    /** The bytes {@link #holds} reads at a time, and the characters it compares at a time. */
    private static final int BLOCK = 8192;

    /** The largest file {@link #holds} reads whole rather than a block at a time. */
    static final int WHOLE = 64 * 1024;

    /**
     * Whether regular file {@code f} holds exactly {@code text} as {@link #read} would decode it:
     * false for a file that is not UTF-8, for a symbolic link and for a missing file. A file
     * larger than {@link #WHOLE} is read and compared a block at a time, so neither its bytes nor
     * its text is ever held whole: the writer asks this of each file it is about to write, which
     * mostly holds what it wrote last, and on a large file two whole copies per write were most of
     * what the writer allocated. A smaller one is read whole, which costs less than the blocks.
     */
    public static boolean holds(java.nio.file.Path f, String text) throws IOException {
        if (!java.nio.file.Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (java.nio.channels.SeekableByteChannel ch = java.nio.file.Files.newByteChannel(
                f, java.nio.file.StandardOpenOption.READ, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            // Each UTF-16 unit of the text is one to three bytes of UTF-8 (a surrogate pair, four).
            if (size < text.length() || size > 3L * text.length()) {
                return false;
            }
            if (size <= WHOLE) {
                // Read whole and compared at once: for a small file, cheaper than the blocks' buffers.
                byte[] bytes = java.nio.channels.Channels.newInputStream(ch).readAllBytes();
                return decodeOrEmpty(bytes, f.toString()).filter(text::equals).isPresent();
            }
            CharsetDecoder decoder = strict();
            ByteBuffer in = ByteBuffer.allocate(BLOCK);
            CharBuffer out = CharBuffer.allocate(BLOCK); // never overflows: a byte decodes to a unit at most
            char[] expected = new char[BLOCK];
            int at = 0;
            boolean end = false;
            while (!end) {
                end = ch.read(in) < 0;
                in.flip();
                if (decoder.decode(in, out, end).isError()
                        || (end && decoder.flush(out).isError())) {
                    return false;
                }
                out.flip();
                int n = out.remaining();
                if (n > text.length() - at) {
                    return false;
                }
                text.getChars(at, at + n, expected, 0);
                if (java.util.Arrays.mismatch(out.array(), 0, n, expected, 0, n) >= 0) {
                    return false;
                }
                at += n;
                out.clear();
                in.compact();
            }
            return at == text.length();
        } catch (java.nio.file.NoSuchFileException e) {
            return false; // gone since the look above
        } catch (java.nio.file.FileSystemException e) {
            if (java.nio.file.Files.isSymbolicLink(f)) {
                return false; // replaced by a link since the look above: not followed
            }
            throw e;
        }
    }

    /** {@code bytes} as UTF-8 text; {@code path} names them in the exception when they are not. */
    public static String decode(byte[] bytes, String path) throws NotUtf8 {
        try {
            CharBuffer out = strict().decode(ByteBuffer.wrap(bytes));
            return out.toString();
        } catch (CharacterCodingException e) {
            throw new NotUtf8(path, firstBad(bytes), new String(bytes, StandardCharsets.UTF_8));
        }
    }

    /**
     * {@code bytes} as UTF-8 text, or empty when they are not: for what memoryd derives from a file
     * (search, the chunk graphs), which leaves such a file out rather than stand it for other text.
     */
    public static java.util.Optional<String> decodeOrEmpty(byte[] bytes, String path) {
        String lenient = new String(bytes, StandardCharsets.UTF_8); // the JDK's fast path for valid text
        if (lenient.indexOf('\uFFFD') < 0) {
            return java.util.Optional.of(lenient); // nothing was replaced, so the bytes were UTF-8
        }
        try {
            return java.util.Optional.of(decode(bytes, path));
        } catch (NotUtf8 e) {
            return java.util.Optional.empty();
        }
    }

    /** Where decoding stops: the first byte of the first sequence that is not UTF-8. */
    private static long firstBad(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        strict().decode(in, CharBuffer.allocate(bytes.length + 1), true);
        return in.position();
    }

    private static CharsetDecoder strict() {
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
    }
}
