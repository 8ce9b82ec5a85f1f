package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.Pack;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The fast way of a pack roll-up ({@link PackCompactor}): packs whose version-2 index files this
 * reads are combined by merging those index files and copying the packs' entries, with no JGit
 * object per entry. Stateless; called by the roll-up only.
 */
final class IndexFileMerge {
    private IndexFileMerge() {}

    /** A version-2 index file's bytes: {@code n} entries, names from {@link PackIndexV2#NAMES}. */
    record IdxFile(byte[] b, int n) {
        int name(int i) {
            return PackIndexV2.NAMES + i * 20;
        }

        int crc(int i) {
            return org.eclipse.jgit.util.NB.decodeInt32(b, PackIndexV2.NAMES + n * 20 + i * 4);
        }

        int offset(int i) {
            return org.eclipse.jgit.util.NB.decodeInt32(b, PackIndexV2.NAMES + n * 24 + i * 4);
        }

        /** The index of a pack, when it is version 2 with 32-bit offsets only; else null. */
        static IdxFile read(Path p) throws IOException {
            byte[] b = Files.readAllBytes(p);
            if (b.length < PackIndexV2.NAMES + 40
                    || b[0] != (byte) 0xff
                    || b[1] != 't'
                    || b[2] != 'O'
                    || b[3] != 'c'
                    || org.eclipse.jgit.util.NB.decodeInt32(b, 4) != 2) {
                return null;
            }
            int n = org.eclipse.jgit.util.NB.decodeInt32(b, 8 + 255 * 4);
            if (n < 0 || (long) PackIndexV2.NAMES + 28L * n + 40 != b.length) {
                return null; // a 64-bit offset table, or not the layout we know
            }
            return new IdxFile(b, n);
        }
    }

    /**
     * As {@link PackCompactor}'s byte-for-byte concatenation, reading the packs' index files directly: entries are merged by name
     * across packs (so the new index needs no sort and duplicates fall out), streamed in each pack's
     * offset order into the new pack (forced before it is installed), and the new index is written
     * from arrays. No object is allocated per entry;
     * going through JGit's index objects cost several microseconds per entry, and a roll-up
     * moves each object about six times over its life. Returns the new pack's name, or null
     * (nothing written) when an index is not one this reads or a pack holds deltas; the concatenation
     * then does the work.
     */
    static ObjectId combine(ObjectDirectory odb, List<Pack> chosen) throws IOException {
        int k = chosen.size();
        IdxFile[] idx = new IdxFile[k];
        long total = 12;
        int objects = 0;
        for (int p = 0; p < k; p++) {
            idx[p] = IdxFile.read(odb.getPackDirectory()
                    .toPath()
                    .resolve("pack-" + chosen.get(p).getPackName() + ".idx"));
            if (idx[p] == null) {
                return null;
            }
            objects += idx[p].n();
            total += Files.size(chosen.get(p).getPackFile().toPath());
        }
        if (total + 16L * objects > Integer.MAX_VALUE - 64) {
            return null; // offsets past 2 GiB need the index's 64-bit table: let JGit repack these
        }
        // Merge by name: which entry of which pack each output entry is, in name order.
        int[] srcPack = new int[objects];
        int[] srcEntry = new int[objects];
        boolean[][] keep = new boolean[k][];
        int[] cursor = new int[k];
        for (int p = 0; p < k; p++) {
            keep[p] = new boolean[idx[p].n()];
        }
        int m = 0;
        java.util.PriorityQueue<Integer> heap = new java.util.PriorityQueue<>(Math.max(1, k), (a, b) -> {
            int c = java.util.Arrays.compareUnsigned(
                    idx[a].b(),
                    idx[a].name(cursor[a]),
                    idx[a].name(cursor[a]) + 20,
                    idx[b].b(),
                    idx[b].name(cursor[b]),
                    idx[b].name(cursor[b]) + 20);
            return c != 0 ? c : Integer.compare(a, b);
        });
        for (int p = 0; p < k; p++) {
            if (idx[p].n() > 0) {
                heap.add(p);
            }
        }
        while (!heap.isEmpty()) {
            int p = heap.poll();
            int i = cursor[p];
            boolean dup = m > 0
                    && java.util.Arrays.equals(
                            idx[p].b(),
                            idx[p].name(i),
                            idx[p].name(i) + 20,
                            idx[srcPack[m - 1]].b(),
                            idx[srcPack[m - 1]].name(srcEntry[m - 1]),
                            idx[srcPack[m - 1]].name(srcEntry[m - 1]) + 20);
            if (!dup) {
                srcPack[m] = p;
                srcEntry[m] = i;
                keep[p][i] = true;
                m++;
            }
            if (++cursor[p] < idx[p].n()) {
                heap.add(p);
            }
        }
        // Copy the kept entries pack by pack in offset order (an entry ends where the next begins),
        // streaming from each pack file to the new one: a roll-up holds buffers, never the packs.
        int[][] newOffset = new int[k][];
        int[][] newCrc = new int[k][]; // for deltas whose base distance was rewritten; else the index's
        boolean[][] recrc = new boolean[k][];
        Path dir = odb.getPackDirectory().toPath();
        Path tmpPack = Files.createTempFile(dir, "memoryd_compact_", ".pack.tmp");
        Path tmpIdx = Files.createTempFile(dir, "memoryd_compact_", ".idx.tmp");
        try {
            java.security.MessageDigest md = PackIndexV2.sha1();
            byte[] packHash;
            try (PackOut out = new PackOut(tmpPack, md)) {
                byte[] hdr = {'P', 'A', 'C', 'K', 0, 0, 0, 0, 0, 0, 0, 0};
                org.eclipse.jgit.util.NB.encodeInt32(hdr, 4, 2);
                org.eclipse.jgit.util.NB.encodeInt32(hdr, 8, m);
                out.write(hdr, 0, hdr.length);
                for (int p = 0; p < k; p++) {
                    if (!copyKept(chosen.get(p), idx[p], keep[p], out, newOffset, newCrc, recrc, p)) {
                        return null;
                    }
                }
                packHash = out.finish();
            }
            int entries = m;
            byte[] idxBytes = PackIndexV2.write(
                    entries,
                    new PackIndexV2.Entries() {
                        @Override
                        public void names(byte[] dst, int pos) {
                            for (int i = 0; i < entries; i++) {
                                System.arraycopy(
                                        idx[srcPack[i]].b(), idx[srcPack[i]].name(srcEntry[i]), dst, pos + i * 20, 20);
                            }
                        }

                        @Override
                        public void crcs(int[] dst) {
                            for (int i = 0; i < dst.length; i++) {
                                dst[i] = recrc[srcPack[i]][srcEntry[i]]
                                        ? newCrc[srcPack[i]][srcEntry[i]]
                                        : idx[srcPack[i]].crc(srcEntry[i]);
                            }
                        }

                        @Override
                        public void offsets(long[] dst) {
                            for (int i = 0; i < dst.length; i++) {
                                dst[i] = newOffset[srcPack[i]][srcEntry[i]];
                            }
                        }
                    },
                    packHash);
            // A pack's name is the SHA-1 of its sorted object names, which the index holds contiguously.
            java.security.MessageDigest nameMd = PackIndexV2.sha1();
            nameMd.update(idxBytes, PackIndexV2.NAMES, m * 20);
            ObjectId name = ObjectId.fromRaw(nameMd.digest());
            try (java.nio.channels.FileChannel ch =
                    java.nio.channels.FileChannel.open(tmpIdx, java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(idxBytes);
                while (bb.hasRemaining()) {
                    ch.write(bb);
                }
                ch.force(true);
            }
            PackCompactor.install(odb, name, tmpPack, tmpIdx);
            return name;
        } finally {
            Files.deleteIfExists(tmpPack);
            Files.deleteIfExists(tmpIdx);
        }
    }

    /**
     * Copies pack {@code pack}'s kept entries to {@code out} in offset order, recording where each
     * lands (and a new CRC for a delta whose base distance changed); false when the pack is not as
     * its index says or a delta's base was dropped, so nothing of the roll-up is kept.
     */
    private static boolean copyKept(
            Pack pack,
            IdxFile idx,
            boolean[] keep,
            PackOut out,
            int[][] newOffset,
            int[][] newCrc,
            boolean[][] recrc,
            int p)
            throws IOException {
        Path file = pack.getPackFile().toPath();
        long size = Files.size(file);
        int n = idx.n();
        long[] byOffset = new long[n];
        for (int i = 0; i < n; i++) {
            byOffset[i] = ((long) idx.offset(i) << 31) | i;
        }
        java.util.Arrays.sort(byOffset);
        newOffset[p] = new int[n];
        newCrc[p] = new int[n];
        recrc[p] = new boolean[n];
        byte[] head = new byte[32];
        try (java.io.InputStream in = new java.io.BufferedInputStream(Files.newInputStream(file), 64 * 1024)) {
            long pos = 0;
            for (int j = 0; j < n; j++) {
                int i = (int) (byOffset[j] & 0x7fffffffL);
                long off = byOffset[j] >>> 31;
                long end = j + 1 < n ? byOffset[j + 1] >>> 31 : size - 20;
                if (!keep[i]) {
                    continue;
                }
                if (end < off || off < pos) {
                    return false; // a pack not as its index says: leave the packs as they are
                }
                in.skipNBytes(off - pos);
                pos = off;
                // The entry's header: a type-and-size varint, then for an OFS_DELTA its base distance.
                int h = 0;
                do {
                    if (h == 16 || pos + h >= end) {
                        return false;
                    }
                    head[h] = (byte) in.read();
                } while ((head[h++] & 0x80) != 0);
                int type = (head[0] >> 4) & 7;
                if (type == Constants.OBJ_OFS_DELTA) {
                    int v = h;
                    do {
                        if (v == head.length || pos + v >= end) {
                            return false;
                        }
                        head[v] = (byte) in.read();
                    } while ((head[v++] & 0x80) != 0);
                    long[] ofs = Deltas.decodeOfs(head, h);
                    long baseOff = off - ofs[0];
                    // Its base comes earlier in this pack; if kept, it was copied already: only the
                    // distance back to it changes.
                    int b = java.util.Arrays.binarySearch(byOffset, 0, j, baseOff << 31);
                    b = b < 0 ? -b - 1 : b; // the entry at that offset sorts just after the bare offset
                    int bi = b < j && (byOffset[b] >>> 31) == baseOff ? (int) (byOffset[b] & 0x7fffffffL) : -1;
                    if (bi < 0 || !keep[bi]) {
                        return false; // its base was dropped as another pack's duplicate: let JGit repack these
                    }
                    int at = Math.toIntExact(out.position());
                    newOffset[p][i] = at;
                    byte[] rewritten = new byte[h + 10];
                    System.arraycopy(head, 0, rewritten, 0, h);
                    int hl = Deltas.encodeOfs(rewritten, h, at - newOffset[p][bi]);
                    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                    out.write(rewritten, 0, hl);
                    crc.update(rewritten, 0, hl);
                    out.copy(in, end - off - v, crc);
                    newCrc[p][i] = (int) crc.getValue();
                    recrc[p][i] = true;
                    pos = end;
                    continue;
                }
                if (type < 1 || type > 4) {
                    return false; // a REF_DELTA: leave it to JGit
                }
                newOffset[p][i] = Math.toIntExact(out.position());
                out.write(head, 0, h);
                out.copy(in, end - off - h, null);
                pos = end;
            }
        }
        return true;
    }

    /**
     * The rolled-up pack being written: a buffer in front of a file, the pack's SHA-1 taken as the
     * bytes go out, then the hash appended and the file forced. Not thread-safe.
     */
    private static final class PackOut implements AutoCloseable {
        private final java.nio.channels.FileChannel ch;
        private final java.security.MessageDigest md;
        private final byte[] buf = new byte[256 * 1024];
        private int used;
        private long written;

        PackOut(Path file, java.security.MessageDigest md) throws IOException {
            this.ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE);
            this.md = md;
        }

        long position() {
            return written + used;
        }

        void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                if (used == buf.length) {
                    drain();
                }
                int c = Math.min(len, buf.length - used);
                System.arraycopy(b, off, buf, used, c);
                used += c;
                off += c;
                len -= c;
            }
        }

        /** Copies exactly {@code len} bytes of {@code in}, into {@code crc} too when not null. */
        void copy(java.io.InputStream in, long len, java.util.zip.CRC32 crc) throws IOException {
            while (len > 0) {
                if (used == buf.length) {
                    drain();
                }
                int r = in.read(buf, used, (int) Math.min(len, buf.length - used));
                if (r < 0) {
                    throw new java.io.EOFException("a pack ended before its index said");
                }
                if (crc != null) {
                    crc.update(buf, used, r);
                }
                used += r;
                len -= r;
            }
        }

        private void drain() throws IOException {
            md.update(buf, 0, used);
            java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(buf, 0, used);
            while (bb.hasRemaining()) {
                ch.write(bb);
            }
            written += used;
            used = 0;
        }

        /** Appends the hash of everything written and forces the file; returns the hash. */
        byte[] finish() throws IOException {
            drain();
            byte[] hash = md.digest();
            java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(hash);
            while (bb.hasRemaining()) {
                ch.write(bb);
            }
            ch.force(true);
            return hash;
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }
}
