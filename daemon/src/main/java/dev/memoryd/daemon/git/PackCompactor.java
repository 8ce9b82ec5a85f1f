package dev.memoryd.daemon.git;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.Pack;
import org.eclipse.jgit.internal.storage.file.PackIndex;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.pack.PackConfig;

/**
 * Keeps the number of packs small while every batch of writes adds one: small packs are rolled
 * into one geometrically (as {@code git repack --geometric=2} does), so after a roll-up each pack
 * holds at least twice the objects of all smaller ones together and the pack count stays
 * logarithmic in the number of objects. Compressed object data is copied, not re-deflated, and
 * no deltas are searched, so a roll-up costs about a copy of the packs it combines; the deltas a
 * batch wrote (ledger segments against their previous version) move with their base, only the
 * distance back to it rewritten.
 *
 * <p>Bounded: a pack of half {@link #MAX_BYTES} or more is left as it is from then on (git gc
 * still repacks it), and a roll-up combines at most {@link #MAX_BYTES}. Without the bound the
 * geometric rule sooner or later combines every pack, so a roll-up copied (and held) the whole
 * repository; with it, each byte is copied about log2(MAX_BYTES / a batch's pack) times in all,
 * and the packs of half the bound and more grow in number by one per that many bytes of history.
 * A pack that stayed a candidate while the ones beside it filled the bound would be copied again
 * at every roll-up: hence half, not the bound itself.
 *
 * <p>Crash-safe: the combined pack is in place (renamed, registered) before the packs it
 * replaces are deleted, so a crash leaves at worst duplicate objects. Those are deleted only when
 * no git gc is running ({@link ReplacedPacks}). Called by the writer only.
 */
final class PackCompactor {
    /** Below this many packs nothing is combined. */
    static final int MIN_PACKS = 8;

    /** The most pack bytes one roll-up reads (and writes) at once. */
    static final long MAX_BYTES = 32L << 20;

    private PackCompactor() {}

    /**
     * Combines small packs if there are too many, then deletes the packs this and earlier roll-ups
     * replaced unless a git gc is running ({@link ReplacedPacks}); returns how many packs were
     * combined.
     */
    static int maybeCompact(Repository repo, ReplacedPacks replaced) throws IOException {
        return maybeCompact(repo, replaced, MAX_BYTES);
    }

    /** As {@link #maybeCompact(Repository, ReplacedPacks)}, combining at most {@code maxBytes} of packs. */
    static int maybeCompact(Repository repo, ReplacedPacks replaced, long maxBytes) throws IOException {
        ObjectDirectory odb = (ObjectDirectory) repo.getObjectDatabase();
        int combined = rollUp(repo, odb, replaced, maxBytes);
        replaced.deleteUnlessGcRuns(odb, repo.getDirectory().toPath());
        return combined;
    }

    private static int rollUp(Repository repo, ObjectDirectory odb, ReplacedPacks replaced, long maxBytes)
            throws IOException {
        List<Pack> packs = new ArrayList<>();
        List<Long> counts = new ArrayList<>();
        for (Pack p : odb.getPacks()) {
            if (!p.shouldBeKept() && !replaced.contains(p.getPackName()) && bytes(p) < maxBytes / 2) {
                packs.add(p);
            }
        }
        if (packs.size() < MIN_PACKS) {
            return 0;
        }
        packs.sort(Comparator.comparingLong(PackCompactor::count));
        for (Pack p : packs) {
            counts.add(count(p));
        }
        // Smallest split such that every pack from it on outweighs twice all packs before it.
        int split = packs.size();
        long below = 0;
        for (long c : counts) {
            below += c;
        }
        while (split > 0) {
            long c = counts.get(split - 1);
            below -= c;
            if (c < 2 * below) {
                break;
            }
            split--;
        }
        // The smallest of them up to the bound (packs are sorted by objects, not bytes, so a
        // larger one may come before a smaller: the first that would pass the bound ends the list).
        long total = 0;
        for (int i = 0; i < split; i++) {
            total += bytes(packs.get(i));
            if (total > maxBytes) {
                split = i;
                break;
            }
        }
        if (split < 2) {
            return 0;
        }
        List<Pack> chosen = packs.subList(0, split);
        ObjectId name = IndexFileMerge.combine(odb, chosen);
        if (name == null) {
            name = combineRaw(odb, chosen);
        }
        if (name == null) {
            name = combine(repo, odb, chosen);
        }
        for (Pack p : chosen) {
            if (!p.getPackName().equals(name.name())) {
                replaced.add(p.getPackName());
            }
        }
        return split;
    }

    private static long bytes(Pack p) {
        try {
            return Files.size(p.getPackFile().toPath());
        } catch (IOException e) {
            return Long.MAX_VALUE; // unreadable: leave it alone
        }
    }

    private static long count(Pack p) {
        try {
            return p.getIndex().getObjectCount();
        } catch (IOException e) {
            return Long.MAX_VALUE; // unreadable: leave it alone
        }
    }

    /**
     * Concatenates the packs' object entries byte for byte (no inflate, no re-deflate). Works when
     * every entry is a whole object, as in the packs memoryd writes; returns the new pack's name, or
     * null (nothing written) if a pack holds deltas, whose offsets would not survive the move.
     */
    private static ObjectId combineRaw(ObjectDirectory odb, List<Pack> chosen) throws IOException {
        long total = 12;
        for (Pack p : chosen) {
            total += Files.size(p.getPackFile().toPath());
        }
        if (total > Integer.MAX_VALUE - 64) {
            return null;
        }
        // One array sized for every entry: no growing buffer and no copy of it before writing.
        byte[] out = new byte[(int) total];
        int len = 12;
        List<org.eclipse.jgit.transport.PackedObjectInfo> infos = new ArrayList<>();
        Set<ObjectId> seen = new HashSet<>();
        for (Pack p : chosen) {
            byte[] data = Files.readAllBytes(p.getPackFile().toPath());
            PackIndex idx = p.getIndex();
            List<long[]> entries = new ArrayList<>(); // offset, index into ids
            List<ObjectId> ids = new ArrayList<>();
            for (PackIndex.MutableEntry e : idx) {
                entries.add(new long[] {e.getOffset(), ids.size()});
                ids.add(e.toObjectId());
            }
            entries.sort(Comparator.comparingLong(a -> a[0]));
            for (int i = 0; i < entries.size(); i++) {
                int off = Math.toIntExact(entries.get(i)[0]);
                int end = i + 1 < entries.size() ? Math.toIntExact(entries.get(i + 1)[0]) : data.length - 20;
                int type = (data[off] >> 4) & 7;
                if (type < 1 || type > 4) {
                    return null;
                }
                ObjectId id = ids.get((int) entries.get(i)[1]);
                if (!seen.add(id)) {
                    continue;
                }
                if (len + (end - off) > out.length) {
                    return null; // a pack file changed size under us: leave the packs as they are
                }
                org.eclipse.jgit.transport.PackedObjectInfo info = new org.eclipse.jgit.transport.PackedObjectInfo(id);
                info.setOffset(len);
                info.setCRC((int) idx.findCRC32(id));
                System.arraycopy(data, off, out, len, end - off);
                len += end - off;
                infos.add(info);
            }
        }
        out[0] = 'P';
        out[1] = 'A';
        out[2] = 'C';
        out[3] = 'K';
        org.eclipse.jgit.util.NB.encodeInt32(out, 4, 2);
        org.eclipse.jgit.util.NB.encodeInt32(out, 8, infos.size());
        java.security.MessageDigest md = PackIndexV2.sha1();
        java.security.MessageDigest nameMd = PackIndexV2.sha1();
        md.update(out, 0, len);
        byte[] packHash = md.digest();
        java.util.Collections.sort(infos);
        byte[] raw = new byte[20];
        for (org.eclipse.jgit.transport.PackedObjectInfo o : infos) {
            o.copyRawTo(raw, 0);
            nameMd.update(raw);
        }
        ObjectId name = ObjectId.fromRaw(nameMd.digest());
        byte[] idxBytes = PackIndexV2.write(infos, packHash);
        writeAndInstall(odb, name, out, len, packHash, idxBytes);
        return name;
    }

    /**
     * Renames the combined pack (forced already) into place, forces the directory and registers
     * the pack; the packs it replaces stay for now, and are deleted only after this returned.
     */
    static void install(ObjectDirectory odb, ObjectId name, Path tmpPack, Path tmpIdx) throws IOException {
        Path packDir = odb.getPackDirectory().toPath();
        Path realPack = packDir.resolve("pack-" + name.name() + ".pack");
        Path realIdx = packDir.resolve("pack-" + name.name() + ".idx");
        Files.move(tmpPack, realPack, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Files.move(tmpIdx, realIdx, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (java.nio.channels.FileChannel d =
                java.nio.channels.FileChannel.open(packDir, java.nio.file.StandardOpenOption.READ)) {
            d.force(true); // a crash never keeps the deletion of the old packs and loses the new one
        }
        odb.openPack(realPack.toFile());
    }

    private static ObjectId combine(Repository repo, ObjectDirectory odb, List<Pack> chosen) throws IOException {
        File packDir = odb.getPackDirectory();
        PackConfig pc = new PackConfig(repo);
        pc.setDeltaCompress(false);
        pc.setReuseObjects(true);
        pc.setReuseDeltas(true);
        pc.setBuildBitmaps(false);
        Path tmpPack = Files.createTempFile(packDir.toPath(), "memoryd_compact_", ".pack.tmp");
        Path tmpIdx = Files.createTempFile(packDir.toPath(), "memoryd_compact_", ".idx.tmp");
        ObjectId name;
        try (ObjectReader reader = repo.newObjectReader();
                RevWalk rw = new RevWalk(reader);
                PackWriter pw = new PackWriter(pc, reader)) {
            Set<ObjectId> seen = new HashSet<>();
            List<RevObject> objs = new ArrayList<>();
            for (Pack p : chosen) {
                for (PackIndex.MutableEntry e : p) {
                    ObjectId id = e.toObjectId();
                    if (seen.add(id)) {
                        objs.add(rw.lookupAny(id, reader.open(id).getType()));
                    }
                }
            }
            pw.preparePack(objs.iterator());
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmpPack))) {
                pw.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, out);
            }
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmpIdx))) {
                pw.writeIndex(out);
            }
            name = pw.computeName();
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmpPack);
            Files.deleteIfExists(tmpIdx);
            throw e;
        }
        install(odb, name, tmpPack, tmpIdx);
        return name;
    }

    /** Removes temp files a killed writer may have left in the object store. */
    static void removeTempFiles(Repository repo) throws IOException {
        ObjectDirectory odb = (ObjectDirectory) repo.getObjectDatabase();
        for (Path dir :
                new Path[] {odb.getDirectory().toPath(), odb.getPackDirectory().toPath()}) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    String n = p.getFileName().toString();
                    if ((n.startsWith("insert_") && (n.endsWith(".pack") || n.endsWith(".idx")))
                            || n.startsWith("memoryd_compact_")
                            || n.startsWith("memoryd_insert_")) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }

    /** Writes the rolled-up pack ({@code out[0..len)} then its trailing hash) and index to temp files and installs them. */
    static void writeAndInstall(
            ObjectDirectory odb, ObjectId name, byte[] out, int len, byte[] packHash, byte[] idxBytes)
            throws IOException {
        Path dir = odb.getPackDirectory().toPath();
        Path tmpPack = Files.createTempFile(dir, "memoryd_compact_", ".pack.tmp");
        Path tmpIdx = Files.createTempFile(dir, "memoryd_compact_", ".idx.tmp");
        try {
            try (java.nio.channels.FileChannel o =
                    java.nio.channels.FileChannel.open(tmpPack, java.nio.file.StandardOpenOption.WRITE)) {
                writeFully(o, java.nio.ByteBuffer.wrap(out, 0, len));
                writeFully(o, java.nio.ByteBuffer.wrap(packHash));
                o.force(true);
            }
            try (java.nio.channels.FileChannel o =
                    java.nio.channels.FileChannel.open(tmpIdx, java.nio.file.StandardOpenOption.WRITE)) {
                writeFully(o, java.nio.ByteBuffer.wrap(idxBytes));
                o.force(true);
            }
            install(odb, name, tmpPack, tmpIdx);
        } finally {
            Files.deleteIfExists(tmpPack);
            Files.deleteIfExists(tmpIdx);
        }
    }

    private static void writeFully(java.nio.channels.FileChannel ch, java.nio.ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }
}
