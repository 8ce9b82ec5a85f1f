package dev.memoryd.daemon.git;

import java.util.zip.Adler32;

/**
 * A zlib stream (RFC 1950) whose deflate data (RFC 1951) is stored blocks: the bytes as they are,
 * with their lengths and the Adler-32 check. Any inflater reads it, git and JGit among them. For
 * small trees and their deltas, for which compression does not pay for its set-up ({@link
 * BatchPackInserter#STORED_MAX}). Pure and stateless.
 */
final class ZlibStored {
    /** A stored block carries at most this many bytes. */
    private static final int BLOCK = 65_535;

    private ZlibStored() {}

    /** How many bytes {@link #write} makes of {@code len} bytes. */
    static int size(int len) {
        int blocks = Math.max(1, (len + BLOCK - 1) / BLOCK);
        return 2 + 5 * blocks + len + 4;
    }

    /** Writes the stream of {@code data[off, off + len)} at the start of {@code out}; returns its length. */
    static int write(byte[] data, int off, int len, byte[] out) {
        if (out.length < size(len)) {
            throw new IllegalArgumentException("room for " + size(len) + " bytes needed, " + out.length + " given");
        }
        int o = 0;
        out[o++] = 0x78; // deflate, 32 KB window
        out[o++] = 0x01; // fastest; (0x78 << 8 | 0x01) is a multiple of 31, as the header check asks
        int at = off;
        int end = off + len;
        do {
            int n = Math.min(BLOCK, end - at);
            out[o++] = (byte) (at + n == end ? 1 : 0); // BFINAL on the last block, BTYPE 00: stored
            out[o++] = (byte) n;
            out[o++] = (byte) (n >>> 8);
            out[o++] = (byte) ~n;
            out[o++] = (byte) (~n >>> 8);
            System.arraycopy(data, at, out, o, n);
            o += n;
            at += n;
        } while (at < end);
        Adler32 adler = new Adler32();
        adler.update(data, off, len);
        long v = adler.getValue();
        out[o++] = (byte) (v >>> 24);
        out[o++] = (byte) (v >>> 16);
        out[o++] = (byte) (v >>> 8);
        out[o++] = (byte) v;
        return o;
    }
}
