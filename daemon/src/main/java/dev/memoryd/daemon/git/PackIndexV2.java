package dev.memoryd.daemon.git;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import org.eclipse.jgit.transport.PackedObjectInfo;
import org.eclipse.jgit.util.NB;

/**
 * Git's pack index, version 2, built in one array and hashed once. Byte for byte what JGit's
 * {@code PackIndexWriterV2} writes (a test holds it to that); JGit's writer pushes every 4-byte
 * field through a {@code DigestOutputStream}, which made index writing half of a pack roll-up's
 * CPU and a visible part of each batch's flush.
 *
 * <p>Layout: magic and version; a 256-entry fan-out of cumulative counts by first byte; the
 * sorted object names; their CRC-32s; their offsets (32-bit, or an index into a 64-bit table
 * when the top bit is set); the 64-bit table; the pack's checksum; this file's SHA-1.
 */
final class PackIndexV2 {
    private static final long MAX_OFFSET_32 = 0x7fffffffL;

    private PackIndexV2() {}

    /** The index of {@code sorted} (in object-name order) for a pack whose checksum is {@code packHash}. */
    static byte[] write(List<? extends PackedObjectInfo> sorted, byte[] packHash) {
        return write(
                sorted.size(),
                new Entries() {
                    @Override
                    public void names(byte[] dst, int pos) {
                        for (int i = 0; i < sorted.size(); i++) {
                            sorted.get(i).copyRawTo(dst, pos + i * 20);
                        }
                    }

                    @Override
                    public void crcs(int[] dst) {
                        for (int i = 0; i < dst.length; i++) {
                            dst[i] = sorted.get(i).getCRC();
                        }
                    }

                    @Override
                    public void offsets(long[] dst) {
                        for (int i = 0; i < dst.length; i++) {
                            dst[i] = sorted.get(i).getOffset();
                        }
                    }
                },
                packHash);
    }

    /**
     * A pack's entries in object-name order, each part given whole: the loops over the entries
     * are each implementation's own, so none calls through this interface per entry (the JIT
     * compiled such a loop again each time it met another implementation, at a quarter of a
     * second each).
     */
    interface Entries {
        /** Each entry's 20-byte name, entry {@code i}'s at {@code dst[pos + 20 * i]}. */
        void names(byte[] dst, int pos);

        /** Each entry's CRC-32, entry {@code i}'s at {@code dst[i]}. */
        void crcs(int[] dst);

        /** Each entry's offset in the pack, entry {@code i}'s at {@code dst[i]}. */
        void offsets(long[] dst);
    }

    /** Offset of the sorted names in an index of this layout (they are contiguous, 20 bytes each). */
    static final int NAMES = 8 + 256 * 4;

    /** The index of {@code n} entries given in object-name order. */
    static byte[] write(int n, Entries e, byte[] packHash) {
        long[] offsets = new long[n];
        e.offsets(offsets);
        int[] crcs = new int[n];
        e.crcs(crcs);
        int big = 0;
        for (int i = 0; i < n; i++) {
            if (offsets[i] > MAX_OFFSET_32) {
                big++;
            }
        }
        int size = NAMES + n * (20 + 4 + 4) + big * 8 + 20 + 20;
        byte[] b = new byte[size];
        b[0] = (byte) 0xff;
        b[1] = 't';
        b[2] = 'O';
        b[3] = 'c';
        NB.encodeInt32(b, 4, 2);
        e.names(b, NAMES);
        int crcAt = NAMES + n * 20;
        int offs = crcAt + n * 4;
        int offs64 = offs + n * 4;
        int[] fanout = new int[256];
        for (int i = 0; i < n; i++) {
            fanout[b[NAMES + i * 20] & 0xff]++;
            NB.encodeInt32(b, crcAt + i * 4, crcs[i]);
        }
        int k64 = 0;
        for (int i = 0; i < n; i++) {
            long off = offsets[i];
            if (off > MAX_OFFSET_32) {
                NB.encodeInt32(b, offs + i * 4, (1 << 31) | k64);
                NB.encodeInt64(b, offs64 + k64 * 8, off);
                k64++;
            } else {
                NB.encodeInt32(b, offs + i * 4, (int) off);
            }
        }
        int sum = 0;
        for (int i = 0; i < 256; i++) {
            sum += fanout[i];
            NB.encodeInt32(b, 8 + i * 4, sum);
        }
        int tail = offs64 + big * 8;
        System.arraycopy(packHash, 0, b, tail, 20);
        MessageDigest md = sha1();
        md.update(b, 0, tail + 20);
        byte[] self = md.digest();
        System.arraycopy(self, 0, b, tail + 20, 20);
        return b;
    }

    static MessageDigest sha1() {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
