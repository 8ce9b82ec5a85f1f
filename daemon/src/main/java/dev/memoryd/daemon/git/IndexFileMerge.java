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
     * across packs (so the new index needs no sort and duplicates fall out), copied in each pack's
     * offset order, and the new index is written from arrays. No object is allocated per entry;
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
        if (total > Integer.MAX_VALUE - 64) {
            return null;
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
        // Copy the kept entries pack by pack in offset order (an entry ends where the next begins).
        byte[] out = new byte[(int) total + 16 * objects]; // a delta's base distance may take more bytes
        int len = 12;
        int[][] newOffset = new int[k][];
        int[][] newCrc = new int[k][]; // for deltas whose base distance was rewritten; else the index's
        boolean[][] recrc = new boolean[k][];
        for (int p = 0; p < k; p++) {
            byte[] data = Files.readAllBytes(chosen.get(p).getPackFile().toPath());
            int n = idx[p].n();
            long[] byOffset = new long[n];
            for (int i = 0; i < n; i++) {
                byOffset[i] = ((long) idx[p].offset(i) << 31) | i;
            }
            java.util.Arrays.sort(byOffset);
            newOffset[p] = new int[n];
            newCrc[p] = new int[n];
            recrc[p] = new boolean[n];
            for (int j = 0; j < n; j++) {
                int i = (int) (byOffset[j] & 0x7fffffffL);
                int off = (int) (byOffset[j] >>> 31);
                int end = j + 1 < n ? (int) (byOffset[j + 1] >>> 31) : data.length - 20;
                if (!keep[p][i]) {
                    continue;
                }
                int type = (data[off] >> 4) & 7;
                if (end < off || len + (end - off) + 16 > out.length) {
                    return null; // a pack not as its index says: leave the packs as they are
                }
                if (type == Constants.OBJ_OFS_DELTA) {
                    // Its base comes earlier in this pack; if kept, it was copied already: only the
                    // distance back to it changes.
                    int h = off;
                    while ((data[h] & 0x80) != 0) {
                        h++;
                    }
                    h++;
                    long[] ofs = Deltas.decodeOfs(data, h);
                    long baseOff = off - ofs[0];
                    int b = java.util.Arrays.binarySearch(byOffset, 0, j, baseOff << 31);
                    b = b < 0 ? -b - 1 : b; // the entry at that offset sorts just after the bare offset
                    int bi = b < j && (byOffset[b] >>> 31) == baseOff ? (int) (byOffset[b] & 0x7fffffffL) : -1;
                    if (bi < 0 || !keep[p][bi]) {
                        return null; // its base was dropped as another pack's duplicate: let JGit repack these
                    }
                    newOffset[p][i] = len;
                    System.arraycopy(data, off, out, len, h - off);
                    int at = Deltas.encodeOfs(out, len + (h - off), len - newOffset[p][bi]);
                    int rest = end - (h + (int) ofs[1]);
                    System.arraycopy(data, h + (int) ofs[1], out, at, rest);
                    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                    crc.update(out, len, at + rest - len);
                    newCrc[p][i] = (int) crc.getValue();
                    recrc[p][i] = true;
                    len = at + rest;
                    continue;
                }
                if (type < 1 || type > 4) {
                    return null; // a REF_DELTA: leave it to JGit
                }
                newOffset[p][i] = len;
                System.arraycopy(data, off, out, len, end - off);
                len += end - off;
            }
        }
        out[0] = 'P';
        out[1] = 'A';
        out[2] = 'C';
        out[3] = 'K';
        org.eclipse.jgit.util.NB.encodeInt32(out, 4, 2);
        org.eclipse.jgit.util.NB.encodeInt32(out, 8, m);
        java.security.MessageDigest md = PackIndexV2.sha1();
        md.update(out, 0, len);
        byte[] packHash = md.digest();
        byte[] idxBytes = PackIndexV2.write(
                m,
                new PackIndexV2.Entries() {
                    @Override
                    public void name(int i, byte[] dst, int pos) {
                        System.arraycopy(idx[srcPack[i]].b(), idx[srcPack[i]].name(srcEntry[i]), dst, pos, 20);
                    }

                    @Override
                    public int crc(int i) {
                        return recrc[srcPack[i]][srcEntry[i]]
                                ? newCrc[srcPack[i]][srcEntry[i]]
                                : idx[srcPack[i]].crc(srcEntry[i]);
                    }

                    @Override
                    public long offset(int i) {
                        return newOffset[srcPack[i]][srcEntry[i]];
                    }
                },
                packHash);
        // A pack's name is the SHA-1 of its sorted object names, which the index holds contiguously.
        java.security.MessageDigest nameMd = PackIndexV2.sha1();
        nameMd.update(idxBytes, PackIndexV2.NAMES, m * 20);
        ObjectId name = ObjectId.fromRaw(nameMd.digest());
        PackCompactor.writeAndInstall(odb, name, out, len, packHash, idxBytes);
        return name;
    }
}
