package dev.memoryd.daemon.git;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.Adler32;
import java.util.zip.Deflater;

/**
 * Deflates the large blobs a store writes again and again (a ledger segment growing by lines, a
 * memory file edited in one section) so that only the part a change touched is compressed again.
 *
 * <p>A blob's zlib stream is made of pieces of about {@link #PIECE} bytes, each deflated on its own
 * (an empty dictionary, ended by a sync flush, so the pieces can stand side by side in one stream),
 * then a final empty block and the Adler-32 of the whole. Git and JGit read such a stream as any
 * other: the format allows any number of blocks. For each path the last version's bytes and pieces
 * are kept; the next version of that path reuses every piece whose bytes lie, unchanged and at the
 * same distance from the start or from the end, outside the changed span (found by comparing the
 * two versions' bytes, so reuse is exact whatever the history) and deflates the span alone. An
 * append deflates its new bytes and the last piece; an edit in the middle, one or two pieces.
 *
 * <p>What is kept is bounded ({@link #HELD_BYTES} of blob bytes, the paths used longest ago dropped
 * first). The byte arrays given to {@link #deflate} are kept by reference and must not be changed
 * afterwards. Thread-safe (its methods hold its lock: they run on one store's writer thread,
 * where the lock is never contended, and one deflater must never serve two streams at once).
 */
final class PieceDeflater {
    /**
     * Blobs smaller than this are deflated whole: their compression costs less than keeping them.
     * A ledger segment of ordinary declarations (32 lines of about a kilobyte) passes it half-way.
     */
    static final int MIN_BYTES = 16 * 1024;

    /** The size a changed span is cut into; a reused piece under half of it is deflated again with the span. */
    static final int PIECE = 32 * 1024;

    /**
     * Most blob bytes kept for reuse, over all paths (the last blob given is kept whatever its
     * size): a share of the daemon's small heap, enough for the files an agent keeps writing.
     */
    static final long HELD_BYTES = 16L << 20;

    private final Deflater deflater;
    private final byte[] zlibHeader;
    private final byte[] finalBlock;
    private final byte[] buf = new byte[16 * 1024];
    private final Map<String, Pieces> last = new LinkedHashMap<>(16, 0.75f, true);
    private long held;

    PieceDeflater(int level) {
        this.deflater = new Deflater(level, true);
        this.zlibHeader = Arrays.copyOf(whole(new Deflater(level, false)), 2);
        this.finalBlock = whole(new Deflater(level, true));
    }

    /** The stream of empty input: its first two bytes are zlib's header for the level, all of it raw deflate's final empty block. */
    private static byte[] whole(Deflater d) {
        try {
            d.finish();
            byte[] out = new byte[64];
            int n = d.deflate(out);
            return Arrays.copyOf(out, n);
        } finally {
            d.end();
        }
    }

    /** A blob's zlib stream: {@link #header}, then each piece in order, then {@link #trailer}. */
    record Stream(byte[] header, List<byte[]> pieces, byte[] trailer) {
        /** The stream's length in bytes. */
        long length() {
            long n = header.length + trailer.length;
            for (byte[] p : pieces) {
                n += p.length;
            }
            return n;
        }
    }

    /** The last version of one path: its bytes, where each piece starts (and its end), the pieces and their Adler-32s. */
    private record Pieces(byte[] data, int[] starts, byte[][] deflated, int[] adlers) {
        int count() {
            return deflated.length;
        }
    }

    /**
     * The zlib stream of {@code data}, reusing what it shares with the last version of {@code path}
     * given here; {@code data} becomes that last version.
     */
    synchronized Stream deflate(String path, byte[] data) {
        Pieces old = last.remove(path);
        if (old != null) {
            held -= old.data.length;
        }
        Pieces now = old == null ? cut(null, data, 0, data.length, 0, 0, 0) : next(old, data);
        last.put(path, now);
        held += data.length;
        for (Iterator<Pieces> it = last.values().iterator(); held > HELD_BYTES && it.hasNext(); ) {
            Pieces p = it.next();
            if (p != now) {
                held -= p.data.length;
                it.remove();
            }
        }
        return stream(now);
    }

    /** Drops what is kept of {@code path}. */
    synchronized void forget(String path) {
        Pieces old = last.remove(path);
        if (old != null) {
            held -= old.data.length;
        }
    }

    private Pieces next(Pieces old, byte[] data) {
        byte[] was = old.data;
        int p = Arrays.mismatch(was, data);
        if (p < 0) {
            return new Pieces(data, old.starts, old.deflated, old.adlers);
        }
        int s = commonSuffix(was, data, Math.min(was.length, data.length) - p);
        int k = old.count();
        int i = 0; // pieces [0, i) lie before the change
        while (i < k && old.starts[i + 1] <= p) {
            i++;
        }
        int j = k; // pieces [j, k) lie after it
        while (j > i && old.starts[j - 1] >= was.length - s) {
            j--;
        }
        if (i > 0 && old.starts[i] - old.starts[i - 1] < PIECE / 2) {
            i--;
        }
        if (j < k && old.starts[j + 1] - old.starts[j] < PIECE / 2) {
            j++;
        }
        int shift = data.length - was.length;
        return cut(old, data, old.starts[i], old.starts[j] + shift, i, j, shift);
    }

    /**
     * Old pieces {@code [0, before)}, the span {@code [from, to)} of {@code data} deflated in
     * pieces, old pieces {@code [after, count)} moved by {@code shift} ({@code old} null: the span
     * alone).
     */
    private Pieces cut(Pieces old, byte[] data, int from, int to, int before, int after, int shift) {
        int span = to - from;
        int n = span == 0 ? 0 : (span + PIECE - 1) / PIECE;
        int kept = old == null ? 0 : old.count() - after;
        int count = before + n + kept;
        int[] starts = new int[count + 1];
        byte[][] deflated = new byte[count][];
        int[] adlers = new int[count];
        if (before > 0) {
            System.arraycopy(old.starts, 0, starts, 0, before);
            System.arraycopy(old.deflated, 0, deflated, 0, before);
            System.arraycopy(old.adlers, 0, adlers, 0, before);
        }
        int c = before;
        for (int q = 0; q < n; q++) {
            int a = from + (int) ((long) span * q / n);
            int b = from + (int) ((long) span * (q + 1) / n);
            starts[c] = a;
            deflated[c] = deflatePiece(data, a, b - a);
            Adler32 ad = new Adler32();
            ad.update(data, a, b - a);
            adlers[c++] = (int) ad.getValue();
        }
        for (int x = after; x < after + kept; x++) {
            starts[c] = old.starts[x] + shift;
            deflated[c] = old.deflated[x];
            adlers[c++] = old.adlers[x];
        }
        starts[count] = data.length;
        return new Pieces(data, starts, deflated, adlers);
    }

    private byte[] deflatePiece(byte[] data, int off, int len) {
        deflater.reset();
        deflater.setInput(data, off, len);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(Math.max(64, len / 4));
        while (true) {
            int k = deflater.deflate(buf, 0, buf.length, Deflater.SYNC_FLUSH);
            out.write(buf, 0, k);
            if (k < buf.length && deflater.needsInput()) {
                return out.toByteArray();
            }
        }
    }

    private Stream stream(Pieces p) {
        long adler = 1;
        for (int x = 0; x < p.count(); x++) {
            adler = adler32Combine(adler, p.adlers[x] & 0xFFFFFFFFL, p.starts[x + 1] - p.starts[x]);
        }
        byte[] trailer = Arrays.copyOf(finalBlock, finalBlock.length + 4);
        int t = finalBlock.length;
        trailer[t] = (byte) (adler >>> 24);
        trailer[t + 1] = (byte) (adler >>> 16);
        trailer[t + 2] = (byte) (adler >>> 8);
        trailer[t + 3] = (byte) adler;
        return new Stream(zlibHeader, Arrays.asList(p.deflated), trailer);
    }

    /** How many bytes {@code a} and {@code b} share at their ends, at most {@code max}. */
    static int commonSuffix(byte[] a, byte[] b, int max) {
        int s = 0;
        final int block = 4096;
        while (max - s >= block
                && Arrays.equals(a, a.length - s - block, a.length - s, b, b.length - s - block, b.length - s)) {
            s += block;
        }
        while (s < max && a[a.length - 1 - s] == b[b.length - 1 - s]) {
            s++;
        }
        return s;
    }

    private static final long BASE = 65521;

    /** The Adler-32 of two runs of bytes one after the other, from theirs and the second's length (zlib's adler32_combine). */
    static long adler32Combine(long adler1, long adler2, long len2) {
        long rem = len2 % BASE;
        long sum1 = adler1 & 0xFFFF;
        long sum2 = (rem * sum1) % BASE;
        sum1 += (adler2 & 0xFFFF) + BASE - 1;
        sum2 += ((adler1 >>> 16) & 0xFFFF) + ((adler2 >>> 16) & 0xFFFF) + BASE - rem;
        if (sum1 >= BASE) {
            sum1 -= BASE;
        }
        if (sum1 >= BASE) {
            sum1 -= BASE;
        }
        if (sum2 >= (BASE << 1)) {
            sum2 -= (BASE << 1);
        }
        if (sum2 >= BASE) {
            sum2 -= BASE;
        }
        return sum1 | (sum2 << 16);
    }
}
