package dev.memoryd.daemon.git;

import java.util.ArrayList;
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
 * same distance from the start or from the end, outside the changed span, and every piece within
 * it found whole where the first change moved it (two changes far apart: a section and the Change
 * Log), and deflates the rest alone. Reuse is exact whatever the history: a piece is reused only
 * where all its bytes are. An append deflates its new bytes and the last piece; an edit in the
 * middle, one or two pieces.
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
        Pieces now = old == null ? build(null, data, new int[0]) : next(old, data);
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
        int shift = data.length - was.length;
        // A write changes a section and the Change Log (and perhaps the frontmatter): between the
        // first change and the last lie pieces moved by the first change alone, found here.
        int moved = shiftAfter(old, data, p, was.length - s);
        int[] at = new int[k];
        for (int x = 0; x < k; x++) {
            int a = old.starts[x];
            int b = old.starts[x + 1];
            if (b <= p) {
                at[x] = a;
            } else if (a >= was.length - s) {
                at[x] = a + shift;
            } else if (moved != NONE && a >= p && same(was, a, b, data, a + moved)) {
                at[x] = a + moved;
            } else {
                at[x] = -1;
            }
        }
        return build(old, data, at);
    }

    /** A run {@code [from, to)} of the new bytes: old piece {@code piece} kept there, or (-1) deflated anew. */
    private record Seg(int from, int to, int piece) {
        boolean fresh() {
            return piece < 0;
        }
    }

    /** No shift found. */
    private static final int NONE = Integer.MIN_VALUE;

    /** Farthest a piece is looked for from where it was, in bytes: an item or a paragraph, not a rewrite. */
    private static final int MAX_MOVE = 4096;

    /** How many bytes at a piece's start are compared to find where it moved. */
    private static final int PROBE = 256;

    /**
     * The distance the first old piece starting after {@code p} and ending before {@code end} moved
     * in {@code data} (the nearest place within {@link #MAX_MOVE} where its first bytes are), or
     * {@link #NONE}. Only a hint: a piece is reused at it only when all its bytes are there.
     */
    private static int shiftAfter(Pieces old, byte[] data, int p, int end) {
        byte[] was = old.data;
        for (int x = 0; x < old.count(); x++) {
            int a = old.starts[x];
            if (a <= p) {
                continue;
            }
            if (old.starts[x + 1] > end) {
                return NONE;
            }
            int len = Math.min(PROBE, old.starts[x + 1] - a);
            for (int d = 0; d <= MAX_MOVE; d++) {
                if (same(was, a, a + len, data, a + d)) {
                    return d;
                }
                if (d > 0 && same(was, a, a + len, data, a - d)) {
                    return -d;
                }
            }
            return NONE;
        }
        return NONE;
    }

    /** Whether {@code a[from, to)} is in {@code b} at {@code at}. */
    private static boolean same(byte[] a, int from, int to, byte[] b, int at) {
        return at >= 0 && at + (to - from) <= b.length && Arrays.equals(a, from, to, b, at, at + (to - from));
    }

    /**
     * The pieces of {@code data}: old piece {@code x} kept where {@code at[x]} (its start in {@code
     * data}, -1: not kept) says, in order and not overlapping, everything else deflated in pieces of
     * about {@link #PIECE}. A kept piece under half of that beside a span deflated again is deflated
     * with it, so that a file growing at its end does not become a run of small pieces.
     */
    private Pieces build(Pieces old, byte[] data, int[] at) {
        List<Seg> segs = new ArrayList<>();
        int pos = 0;
        for (int x = 0; x < at.length; x++) {
            if (at[x] < pos) {
                continue;
            }
            if (at[x] > pos) {
                segs.add(new Seg(pos, at[x], -1));
            }
            int len = old.starts[x + 1] - old.starts[x];
            segs.add(new Seg(at[x], at[x] + len, x));
            pos = at[x] + len;
        }
        if (pos < data.length) {
            segs.add(new Seg(pos, data.length, -1));
        }
        for (int i = 0; i < segs.size(); i++) {
            Seg g = segs.get(i);
            boolean besideFresh = (i > 0 && segs.get(i - 1).fresh())
                    || (i + 1 < segs.size() && segs.get(i + 1).fresh());
            if (!g.fresh() && g.to() - g.from() < PIECE / 2 && besideFresh) {
                segs.set(i, new Seg(g.from(), g.to(), -1));
            }
        }
        List<Seg> pieces = new ArrayList<>();
        for (int i = 0; i < segs.size(); i++) {
            Seg g = segs.get(i);
            if (!g.fresh()) {
                pieces.add(g);
                continue;
            }
            int to = g.to();
            while (i + 1 < segs.size() && segs.get(i + 1).fresh()) {
                to = segs.get(++i).to();
            }
            int span = to - g.from();
            int n = (span + PIECE - 1) / PIECE;
            for (int q = 0; q < n; q++) {
                pieces.add(new Seg(
                        g.from() + (int) ((long) span * q / n), g.from() + (int) ((long) span * (q + 1) / n), -1));
            }
        }
        int count = pieces.size();
        int[] starts = new int[count + 1];
        byte[][] deflated = new byte[count][];
        int[] adlers = new int[count];
        for (int c = 0; c < count; c++) {
            Seg q = pieces.get(c);
            starts[c] = q.from();
            if (!q.fresh()) {
                deflated[c] = old.deflated[q.piece()];
                adlers[c] = old.adlers[q.piece()];
            } else {
                deflated[c] = deflatePiece(data, q.from(), q.to() - q.from());
                Adler32 ad = new Adler32();
                ad.update(data, q.from(), q.to() - q.from());
                adlers[c] = (int) ad.getValue();
            }
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
