package dev.memoryd.daemon.git;

import java.io.ByteArrayOutputStream;

/**
 * Git's pack delta format (as {@code git index-pack} and JGit's {@code BinaryDelta} read it),
 * for the one shape memoryd makes: a new version that keeps a prefix and a suffix of its base
 * and replaces what lies between. Pure and stateless.
 */
final class Deltas {
    /** A copy instruction can carry at most this many bytes (three size bytes). */
    private static final int MAX_COPY = 0xFFFFFF;

    private Deltas() {}

    /**
     * A delta turning {@code base} into {@code target}: copy the common prefix, insert the bytes
     * between, copy the common suffix. Null when they share nothing.
     */
    static byte[] prefixSuffix(byte[] base, byte[] target) {
        int max = Math.min(base.length, target.length);
        int pre = java.util.Arrays.mismatch(base, target);
        if (pre < 0) {
            pre = max; // equal arrays are never asked for (same id); a strict prefix is
        }
        int suf = 0;
        int room = max - pre;
        while (suf < room && base[base.length - 1 - suf] == target[target.length - 1 - suf]) {
            suf++;
        }
        if (pre == 0 && suf == 0) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(target.length - pre - suf + 32);
        varint(out, base.length);
        varint(out, target.length);
        copy(out, 0, pre);
        int at = pre;
        int end = target.length - suf;
        while (at < end) {
            int n = Math.min(127, end - at);
            out.write(n);
            out.write(target, at, n);
            at += n;
        }
        copy(out, base.length - suf, suf);
        return out.toByteArray();
    }

    private static void copy(ByteArrayOutputStream out, long offset, int size) {
        while (size > 0) {
            int n = Math.min(size, MAX_COPY);
            int cmd = 0x80;
            byte[] arg = new byte[7];
            int k = 0;
            for (int i = 0; i < 4; i++) {
                int b = (int) ((offset >>> (8 * i)) & 0xFF);
                if (b != 0) {
                    cmd |= 1 << i;
                    arg[k++] = (byte) b;
                }
            }
            for (int i = 0; i < 3; i++) {
                int b = (n >>> (8 * i)) & 0xFF;
                if (b != 0) {
                    cmd |= 0x10 << i;
                    arg[k++] = (byte) b;
                }
            }
            out.write(cmd);
            out.write(arg, 0, k);
            offset += n;
            size -= n;
        }
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        while (v >= 0x80) {
            out.write((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
    }

    /** Writes the distance back to an {@code OFS_DELTA}'s base at {@code b[n..]}; returns the new length. */
    static int encodeOfs(byte[] b, int n, long distance) {
        byte[] tmp = new byte[10];
        int pos = tmp.length - 1;
        tmp[pos] = (byte) (distance & 0x7F);
        while ((distance >>>= 7) != 0) {
            tmp[--pos] = (byte) (0x80 | (--distance & 0x7F));
        }
        System.arraycopy(tmp, pos, b, n, tmp.length - pos);
        return n + tmp.length - pos;
    }

    /** Reads an {@code OFS_DELTA}'s base distance at {@code b[at..]}: {distance, bytes read}. */
    static long[] decodeOfs(byte[] b, int at) {
        int p = at;
        int c = b[p++] & 0xFF;
        long distance = c & 0x7F;
        while ((c & 0x80) != 0) {
            c = b[p++] & 0xFF;
            distance = ((distance + 1) << 7) | (c & 0x7F);
        }
        return new long[] {distance, p - at};
    }
}
