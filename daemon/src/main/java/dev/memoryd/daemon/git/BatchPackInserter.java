package dev.memoryd.daemon.git;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.transport.PackParser;
import org.eclipse.jgit.transport.PackedObjectInfo;
import org.eclipse.jgit.util.IO;
import org.eclipse.jgit.util.NB;

/**
 * Collects one batch's objects in memory and writes them as one pack and one index on
 * {@link #flush()}: two file writes and two renames however many objects the batch made (JGit's
 * PackInserter writes each object to disk as it comes and reads the pack back to hash it).
 * Objects cannot be read back before the flush; the writer never needs to. Not thread-safe.
 */
final class BatchPackInserter extends ObjectInserter {
    private static final AtomicLong SEQ = new AtomicLong();

    private final ObjectDirectory odb;
    private final Bytes pack = new Bytes(64 * 1024);
    private final List<PackedObjectInfo> objects = new ArrayList<>();
    /** Pack offset and delta depth (0: whole) of each object this batch wrote, for deltas against them. */
    private final Map<ObjectId, long[]> written = new HashMap<>();

    private final Deflater deflater;
    private final byte[] buf = new byte[16 * 1024];

    /** What the last flush put in place, for {@link Installed#force} off the writer thread. */
    private Installed installed;

    /** Files made ahead to write the pack and its index into (null: made in place at each flush). */
    private final FilesAhead ahead;

    /** How {@link Installed#force} forces files. */
    private final Forcer forcer;

    BatchPackInserter(ObjectDirectory odb, int level, FilesAhead ahead, Forcer forcer) {
        this.odb = odb;
        this.ahead = ahead;
        this.forcer = forcer;
        this.deflater = new Deflater(level);
        pack.write(new byte[12], 0, 12); // header, filled in at flush
    }

    /**
     * One digest for the inserter's life: JGit's {@code idFor} looks a new one up per object, which
     * showed in the writer's profile. Only when the JDK's SHA-1 is the configured one (see
     * {@link GitStore}); another choice (JGit's collision-detecting SHA-1) is left to JGit.
     */
    private final MessageDigest md =
            "jdkNative".equalsIgnoreCase(System.getProperty("org.eclipse.jgit.util.sha1.implementation"))
                    ? PackIndexV2.sha1()
                    : null;

    @Override
    public ObjectId idFor(int type, byte[] data, int off, int len) {
        if (md == null) {
            return super.idFor(type, data, off, len);
        }
        md.reset();
        md.update(Constants.encodedTypeString(type));
        md.update((byte) ' ');
        md.update(Constants.encodeASCII(len));
        md.update((byte) 0);
        md.update(data, off, len);
        return ObjectId.fromRaw(md.digest());
    }

    @Override
    public ObjectId insert(int type, byte[] data, int off, int len) throws IOException {
        return insertWhole(idFor(type, data, off, len), type, data, off, len);
    }

    private ObjectId insertWhole(ObjectId id, int type, byte[] data, int off, int len) {
        if (written.containsKey(id)) {
            return id;
        }
        long offset = pack.size();
        byte[] hdr = new byte[16];
        int n = header(hdr, type, len);
        writeEntry(id, offset, hdr, n, data, off, len, stored(type, len));
        written.put(id, new long[] {offset, 0});
        return id;
    }

    /**
     * Trees and tree deltas up to this many bytes are stored in their zlib stream, not compressed:
     * setting up a deflate costs about 10 µs however small the input (zlib clears a 64 KB table),
     * while a small tree, names and ids, gains next to nothing from it and a tree's delta is a few
     * dozen bytes. Commits and blobs (and blobs' deltas) are compressed whatever their size: text
     * gains a third or more, and git's gc copies an object's stream, or a delta, as it finds it.
     */
    static final int STORED_MAX = 1024;

    /** Whether an object of {@code type}, or its delta, of {@code len} bytes is stored uncompressed. */
    private static boolean stored(int type, int len) {
        return type == Constants.OBJ_TREE && len <= STORED_MAX;
    }

    /**
     * Appends one pack entry: its header, then {@code data} as a zlib stream, {@code stored}
     * uncompressed, else deflated; records it for the index.
     */
    private void writeEntry(
            ObjectId id, long offset, byte[] hdr, int n, byte[] data, int off, int len, boolean stored) {
        CRC32 crc = new CRC32();
        append(hdr, n, crc);
        if (stored) {
            append(buf, ZlibStored.write(data, off, len, buf), crc);
        } else {
            deflater.reset();
            deflater.setInput(data, off, len);
            deflater.finish();
            while (!deflater.finished()) {
                append(buf, deflater.deflate(buf), crc);
            }
        }
        indexed(id, offset, crc);
    }

    /** The last version of each tree this batch wrote, by the tree model's directory: bases for deltas. */
    private final Map<Object, Version> trees = new HashMap<>();

    private record Version(ObjectId id, byte[] bytes) {}

    /**
     * Inserts a tree, as a delta against the last version of the same directory ({@code dir}, any
     * key that stays the same from commit to commit) when this batch wrote one: a commit changes
     * an id or two in each tree on its path, so a delta is a few dozen bytes where the tree of a
     * ledger group, hundreds of entries, deflates to kilobytes. {@code raw} may change after the
     * call; its bytes are copied.
     */
    ObjectId insertTree(Object dir, byte[] raw) throws IOException {
        ObjectId id = idFor(Constants.OBJ_TREE, raw, 0, raw.length);
        Version last = trees.get(dir);
        if (!written.containsKey(id)) {
            if (last != null && raw.length > STORED_MAX) {
                insertAfter(Constants.OBJ_TREE, id, last.id(), last.bytes(), raw);
            } else {
                insertWhole(id, Constants.OBJ_TREE, raw, 0, raw.length);
            }
        }
        trees.put(dir, new Version(id, raw.clone()));
        return id;
    }

    /**
     * Inserts a blob as a whole object whose zlib stream {@code pieces} makes, reusing the pieces
     * an earlier version of {@code path} shares with it (see {@link PieceDeflater}).
     */
    ObjectId insertBlob(String path, byte[] data, PieceDeflater pieces) {
        ObjectId id = idFor(Constants.OBJ_BLOB, data, 0, data.length);
        if (written.containsKey(id)) {
            return id;
        }
        PieceDeflater.Stream z = pieces.deflate(path, data);
        long offset = pack.size();
        byte[] hdr = new byte[16];
        CRC32 crc = new CRC32();
        append(hdr, header(hdr, Constants.OBJ_BLOB, data.length), crc);
        append(z.header(), z.header().length, crc);
        for (byte[] p : z.pieces()) {
            append(p, p.length, crc);
        }
        append(z.trailer(), z.trailer().length, crc);
        indexed(id, offset, crc);
        written.put(id, new long[] {offset, 0});
        return id;
    }

    /** The first {@code len} bytes of {@code b} added to the pack and to its entry's CRC. */
    private void append(byte[] b, int len, CRC32 crc) {
        pack.write(b, 0, len);
        crc.update(b, 0, len);
    }

    /** Records the entry at {@code offset} for the pack's index. */
    private void indexed(ObjectId id, long offset, CRC32 crc) {
        PackedObjectInfo info = new PackedObjectInfo(id);
        info.setOffset(offset);
        info.setCRC((int) crc.getValue());
        objects.add(info);
    }

    /** Longest chain of deltas a read has to apply (git's own default {@code --depth}). */
    static final int MAX_DEPTH = 50;

    /**
     * Inserts a blob that differs from {@code base} (a blob this batch wrote, whose bytes are
     * {@code baseData}) only between a common prefix and suffix, as a ledger segment grows by
     * appended lines from one commit to the next: it is stored as an {@code OFS_DELTA} against the
     * base (copy, insert, copy), so only the changed bytes are deflated. Falls back to a whole
     * object when the base is not in this batch, its chain is {@link #MAX_DEPTH} long, or the
     * delta would save little.
     */
    ObjectId insertBlobAfter(ObjectId base, byte[] baseData, byte[] data) throws IOException {
        return insertAfter(Constants.OBJ_BLOB, idFor(Constants.OBJ_BLOB, data, 0, data.length), base, baseData, data);
    }

    /** As {@link #insertBlobAfter}, for an object of {@code type} whose id is {@code id}. */
    private ObjectId insertAfter(int type, ObjectId id, ObjectId base, byte[] baseData, byte[] data) {
        long[] baseAt = base == null ? null : written.get(base);
        if (baseAt == null || baseAt[1] >= MAX_DEPTH || written.containsKey(id)) {
            return insertWhole(id, type, data, 0, data.length);
        }
        byte[] delta = Deltas.prefixSuffix(baseData, data);
        if (delta == null || delta.length > data.length / 2) {
            return insertWhole(id, type, data, 0, data.length);
        }
        long offset = pack.size();
        byte[] hdr = new byte[32];
        int n = header(hdr, Constants.OBJ_OFS_DELTA, delta.length);
        n = Deltas.encodeOfs(hdr, n, offset - baseAt[0]);
        writeEntry(id, offset, hdr, n, delta, 0, delta.length, stored(type, delta.length));
        written.put(id, new long[] {offset, baseAt[1] + 1});
        return id;
    }

    @Override
    public ObjectId insert(int type, long len, InputStream in) throws IOException {
        byte[] data = new byte[Math.toIntExact(len)];
        IO.readFully(in, data, 0, data.length);
        return insert(type, data, 0, data.length);
    }

    private static int header(byte[] b, int type, long size) {
        long next = size >>> 4;
        b[0] = (byte) ((next > 0 ? 0x80 : 0x00) | (type << 4) | (size & 0x0F));
        int n = 1;
        while (next > 0) {
            long rest = next >>> 7;
            b[n++] = (byte) ((rest > 0 ? 0x80 : 0x00) | (next & 0x7F));
            next = rest;
        }
        return n;
    }

    @Override
    public PackParser newPackParser(InputStream in) {
        throw new UnsupportedOperationException("memoryd's batch inserter does not parse packs");
    }

    @Override
    public ObjectReader newReader() {
        return odb.newReader(); // sees flushed objects only
    }

    @Override
    public void flush() throws IOException {
        installed = null;
        if (objects.isEmpty()) {
            return;
        }
        byte[] bytes = pack.array(); // no copy: the pack is written straight from the buffer
        int len = pack.size();
        System.arraycopy(new byte[] {'P', 'A', 'C', 'K'}, 0, bytes, 0, 4);
        NB.encodeInt32(bytes, 4, 2);
        NB.encodeInt32(bytes, 8, objects.size());
        MessageDigest sha1 = PackIndexV2.sha1();
        sha1.update(bytes, 0, len);
        byte[] packHash = sha1.digest();

        Collections.sort(objects);
        MessageDigest nameMd = PackIndexV2.sha1();
        byte[] raw = new byte[20];
        for (PackedObjectInfo o : objects) {
            o.copyRawTo(raw, 0);
            nameMd.update(raw);
        }
        String name = ObjectId.fromRaw(nameMd.digest()).name();
        byte[] idx = PackIndexV2.write(objects, packHash);

        Path dir = odb.getPackDirectory().toPath();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
        }
        Path realPack = dir.resolve("pack-" + name + ".pack");
        Path realIdx = dir.resolve("pack-" + name + ".idx");
        Path keep = keep(dir.resolve("pack-" + name + ".keep"));
        Path aheadPack = ahead == null ? null : ahead.take();
        Path aheadIdx = aheadPack == null ? null : ahead.take();
        if (aheadPack == null
                || aheadIdx == null
                || !install(aheadPack, aheadIdx, bytes, len, packHash, idx, realPack, realIdx)) {
            if (aheadPack != null) {
                Files.deleteIfExists(aheadPack);
            }
            if (aheadIdx != null) {
                Files.deleteIfExists(aheadIdx);
            }
            String tmpBase = "memoryd_insert_" + ProcessHandle.current().pid() + "_" + SEQ.incrementAndGet();
            Path tmpPack = dir.resolve(tmpBase + ".pack.tmp");
            Path tmpIdx = dir.resolve(tmpBase + ".idx.tmp");
            try {
                write(tmpPack, bytes, len, packHash, StandardOpenOption.CREATE_NEW);
                write(tmpIdx, idx, idx.length, null, StandardOpenOption.CREATE_NEW);
                move(tmpPack, realPack);
                move(tmpIdx, realIdx);
            } finally {
                Files.deleteIfExists(tmpPack);
                Files.deleteIfExists(tmpIdx);
            }
        }
        odb.openPack(realPack.toFile());
        installed = new Installed(realPack, realIdx, keep, forcer);
        reset();
    }

    /** What a keep file of memoryd's holds: the process that may remove it, as git's receive-pack writes its own. */
    static final String KEEP_PREFIX = "memoryd ";

    /**
     * Puts {@code keep} in place before the pack it keeps: until the batch's ref has moved, its
     * objects are reachable from no ref, and a {@code git gc --prune=now} or {@code git repack -a
     * -d} started meanwhile would drop them from the pack it writes and delete this one, leaving
     * the branch naming a commit that is gone. git leaves a pack with a keep file alone, as it
     * does for one a push is still receiving. Written into a file made ahead when there is one.
     */
    private Path keep(Path keep) throws IOException {
        byte[] why = (KEEP_PREFIX + ProcessHandle.current().pid() + " until its ref moves\n")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Path made = ahead == null ? null : ahead.take();
        if (made != null) {
            try {
                write(made, why, why.length, null, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);
                move(made, keep);
                return keep;
            } catch (IOException e) {
                Files.deleteIfExists(made); // another file system, or a link: made in place below
            }
        }
        write(keep, why, why.length, null, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        return keep;
    }

    /**
     * Removes the keep file of a flush once the batch's ref has moved (its objects are then
     * reachable) or the batch was given up (they are garbage): off the caller's way when files
     * are made ahead.
     */
    void release(Installed i) throws IOException {
        if (i == null || i.keep() == null) {
            return;
        }
        if (ahead != null) {
            ahead.discard(i.keep());
        } else {
            Files.deleteIfExists(i.keep());
        }
    }

    /** The pack and index the last {@link #flush} put in place, not forced to disk by it; null when it wrote none. */
    Installed installed() {
        return installed;
    }

    /** A pack and its index as installed in the pack directory, the keep file that holds it until its ref moves, and how to force them. */
    record Installed(Path pack, Path idx, Path keep, Forcer forcer) {
        /**
         * Forces both files' bytes and the directory naming them to disk: once the branch names a
         * commit, a power loss must not leave it pointing into a pack that never reached the disk
         * (a file's name can be durable before its bytes are).
         */
        void force() throws IOException {
            forcer.force(pack, false);
            forcer.force(idx, false);
            forcer.force(pack.getParent(), true);
        }
    }

    /** Forgets objects not flushed (a failed batch's) so the inserter can serve the next batch. */
    void reset() {
        objects.clear();
        written.clear();
        trees.clear();
        pack.reset();
        pack.write(new byte[12], 0, 12);
    }

    /**
     * Writes the pack and index into files made ahead and renames them into place; false, with
     * nothing in place, when those files cannot be used (one replaced by a link, or on another
     * file system than the packs): the caller makes its own.
     */
    private static boolean install(
            Path tmpPack, Path tmpIdx, byte[] bytes, int len, byte[] packHash, byte[] idx, Path realPack, Path realIdx)
            throws IOException {
        try {
            write(tmpPack, bytes, len, packHash, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);
            write(tmpIdx, idx, idx.length, null, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);
            move(tmpPack, realPack);
        } catch (IOException e) { // nothing is in place yet; a cause that is not these files the caller meets again
            return false;
        }
        try {
            move(tmpIdx, realIdx); // between the same directories as the pack's move, which worked
        } catch (IOException e) {
            Files.deleteIfExists(tmpIdx);
            throw e;
        }
        return true;
    }

    private static void move(Path from, Path to) throws IOException {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void write(Path p, byte[] a, int len, byte[] trailer, java.nio.file.OpenOption... how)
            throws IOException {
        java.util.Set<java.nio.file.OpenOption> options = new java.util.HashSet<>(java.util.List.of(how));
        options.add(StandardOpenOption.WRITE);
        try (FileChannel ch = FileChannel.open(p, options)) {
            ByteBuffer[] bufs = trailer == null
                    ? new ByteBuffer[] {ByteBuffer.wrap(a, 0, len)}
                    : new ByteBuffer[] {ByteBuffer.wrap(a, 0, len), ByteBuffer.wrap(trailer)};
            long total = len + (trailer == null ? 0 : trailer.length);
            long done = 0;
            while (done < total) {
                done += ch.write(bufs);
            }
        }
    }

    /** A byte buffer whose array can be read without a copy. */
    private static final class Bytes extends ByteArrayOutputStream {
        Bytes(int size) {
            super(size);
        }

        byte[] array() {
            return buf;
        }
    }

    @Override
    public void close() {
        deflater.end();
    }
}
