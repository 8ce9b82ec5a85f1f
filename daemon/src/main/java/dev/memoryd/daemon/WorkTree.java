package dev.memoryd.daemon;

import dev.memoryd.grammar.RepoPath;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The checked-out files of the memory root. Every path is confined to the root: a path whose
 * existing prefix is a symlink is refused, so nothing outside the root is read or written.
 * Writes are atomic and durable: temp file in the same directory, fsync, rename, fsync of the
 * directory (JGit LockFile's discipline). Thread-safe for reads; writes come from the writer.
 *
 * <p>The spare inodes temp files are made of, and renaming into place, are {@link SparePool}'s job;
 * running fsyncs and renames concurrently {@link FileSyncs}'.
 */
final class WorkTree {
    static final String TMP_SUFFIX = ".memoryd-tmp";
    private final Path root;
    private final SparePool pool;
    private final FileSyncs syncs = new FileSyncs();

    WorkTree(Path root) {
        this(root, null);
    }

    /**
     * A work tree whose temp files come from a pool of spare inodes in {@code spareDir} (a private
     * directory on the same file system as the root, e.g. the state directory): replacing a file
     * then allocates and frees no inode. With a spare directory on another file system (no atomic
     * rename between them) or null, temp files are made beside their targets.
     */
    WorkTree(Path root, Path spareDir) {
        this.root = root;
        this.pool = new SparePool(root, spareDir != null && sameFileSystem(root, spareDir) ? spareDir : null);
    }

    private static boolean sameFileSystem(Path root, Path spareDir) {
        try {
            Path existing = spareDir;
            while (existing != null && !Files.exists(existing)) {
                existing = existing.getParent();
            }
            return existing != null && Files.getFileStore(existing).equals(Files.getFileStore(root));
        } catch (IOException e) {
            return false;
        }
    }

    Path root() {
        return root;
    }

    /** Resolves a repo path to a file under the root, refusing symlinks on the way. */
    Path resolve(RepoPath p) throws IOException {
        return resolve(p, p.value().split("/").length);
    }

    /** The first {@code segments} segments of {@code p} under the root; a symlink among them is refused. */
    private Path resolve(RepoPath p, int segments) {
        Path cur = root;
        String[] segs = p.value().split("/");
        for (int i = 0; i < segments; i++) {
            cur = cur.resolve(segs[i]);
            if (Files.isSymbolicLink(cur)) {
                throw new SecurityException("path " + p.value() + " passes through a symlink (" + root.relativize(cur)
                        + "); memoryd does not follow links out of the root");
            }
        }
        return cur;
    }

    /** The file's text; {@link dev.memoryd.daemon.layout.NotMemoryText} when it is not UTF-8 or is a symbolic link. */
    Optional<String> read(RepoPath p) throws IOException {
        Path f = file(p);
        if (Files.isSymbolicLink(f)) {
            // The file itself replaced by a link: a human's doing to report, not a request to refuse.
            throw dev.memoryd.daemon.layout.NotMemoryText.symlink(
                    p.value(), Files.readSymbolicLink(f).toString());
        }
        try {
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            return Optional.of(dev.memoryd.daemon.layout.Utf8.read(f, p.value()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether {@link #read} would give {@code text} (empty: no regular file), compared as the file
     * is read ({@link dev.memoryd.daemon.layout.Utf8#holds}); false where read would throw.
     */
    boolean holds(RepoPath p, Optional<String> text) throws IOException {
        return holds(file(p), text);
    }

    /** As {@link #holdsAsCompared}, but false for a link, which {@link #read} refuses. */
    private static boolean holds(Path f, Optional<String> text) throws IOException {
        return !Files.isSymbolicLink(f) && holdsAsCompared(f, text);
    }

    private Path file(RepoPath p) throws IOException {
        return resolve(p, p.value().split("/").length - 1)
                .resolve(p.value().substring(p.value().lastIndexOf('/') + 1));
    }

    /**
     * Deletes each file whose bytes are exactly the given ones, then fsyncs the directories it
     * deleted from; a file holding anything else (a human's save), or gone already, is left alone.
     * The paths deleted.
     */
    Set<String> removeIfHolding(Map<String, byte[]> files) throws IOException {
        Set<String> removed = new LinkedHashSet<>();
        Set<Path> dirs = new LinkedHashSet<>();
        for (Map.Entry<String, byte[]> e : files.entrySet()) {
            Path f = resolve(RepoPath.of(e.getKey()));
            try {
                if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                        && java.util.Arrays.equals(Files.readAllBytes(f), e.getValue())) {
                    Files.delete(f);
                    removed.add(e.getKey());
                    dirs.add(f.getParent());
                }
            } catch (NoSuchFileException gone) {
                // deleted meanwhile: what was asked for
            }
        }
        for (Path d : dirs) {
            FileSyncs.fsyncDir(d);
        }
        return removed;
    }

    /** Writes all files, each atomically; directories touched are fsynced once at the end. */
    void writeAll(Map<String, byte[]> files) throws IOException {
        stage(files).publish();
    }

    /**
     * First half of {@link #writeAll}: each file's bytes go to a temp file beside it and are
     * fsynced; nothing a reader sees changes yet, so this may run while the ledger is still being
     * made durable. {@link Staged#publish()} renames them into place.
     */
    Staged stage(Map<String, byte[]> files) throws IOException {
        List<Path[]> moves = new ArrayList<>();
        Set<Path> dirs = new LinkedHashSet<>();
        try {
            for (Map.Entry<String, byte[]> e : files.entrySet()) {
                Path target = resolve(RepoPath.of(e.getKey()));
                Path dir = target.getParent();
                if (!Files.isDirectory(dir)) {
                    Files.createDirectories(dir);
                    dirs.add(dir.getParent());
                }
                Path tmp = pool.takeSpare(target);
                moves.add(new Path[] {tmp, target});
                // A spare inode is written over, not truncated first: truncating frees its blocks
                // (and waits for them) only for the write to allocate as many again, and in a
                // profile of sixteen agents the open's truncation was three quarters of staging.
                try (FileChannel ch = FileChannel.open(
                        tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                    ByteBuffer b = ByteBuffer.wrap(e.getValue());
                    while (b.hasRemaining()) {
                        ch.write(b);
                    }
                    if (ch.size() > e.getValue().length) {
                        ch.truncate(e.getValue().length); // a spare that held a longer file
                    }
                }
                keepPermissions(tmp, target);
                dirs.add(dir);
            }
            fsyncAll(moves);
        } catch (IOException | RuntimeException e) {
            for (Path[] m : moves) {
                pool.giveBack(m[0]);
            }
            throw e;
        }
        Map<String, java.nio.file.attribute.FileTime> modified = new java.util.HashMap<>();
        for (Path[] m : moves) {
            modified.put(rel(m[1]), Files.getLastModifiedTime(m[0], LinkOption.NOFOLLOW_LINKS));
        }
        return new Staged(moves, dirs, modified);
    }

    private String rel(Path target) {
        return root.relativize(target).toString().replace('\\', '/');
    }

    /**
     * Gives a temp file the permissions of the file it replaces (a spare inode carries those of
     * whatever file it last was; a human's executable bit must survive memoryd's write), or
     * {@code rw-r--r--} for a new file.
     */
    private static void keepPermissions(Path tmp, Path target) throws IOException {
        java.nio.file.attribute.PosixFileAttributeView tv = Files.getFileAttributeView(
                tmp, java.nio.file.attribute.PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        if (tv == null) {
            return; // not a POSIX file system: nothing to keep
        }
        Set<java.nio.file.attribute.PosixFilePermission> want;
        try {
            want = Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            want = java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--");
        }
        if (!tv.readAttributes().permissions().equals(want)) {
            tv.setPermissions(want);
        }
    }

    /**
     * Concurrent fsyncs of one batch's files share the file system's journal commits, where one
     * after the other each paid for its own.
     */
    private void fsyncAll(List<Path[]> moves) throws IOException {
        syncs.forEach(moves, m -> FileSyncs.fsync(m[0]));
    }

    /**
     * Temp files of {@link #stage}, waiting to be renamed into place. {@link #precheck} may run
     * first, before git commands are kept out: it reads each target once, and {@link #publish}
     * then needs only a stat to tell that a target is still as it was read.
     */
    final class Staged {
        private final List<Path[]> moves;
        private final Set<Path> dirs;
        private final Map<String, java.nio.file.attribute.FileTime> modified;
        /** By target: what {@link #precheck} saw; absent: not checked ahead. */
        private final Map<Path, Seen> seen = new java.util.HashMap<>();

        private Staged(List<Path[]> moves, Set<Path> dirs, Map<String, java.nio.file.attribute.FileTime> modified) {
            this.moves = moves;
            this.dirs = dirs;
            this.modified = modified;
        }

        /** Each staged file's modification time (by repository path): what it keeps once renamed into place. */
        Map<String, java.nio.file.attribute.FileTime> modified() {
            return modified;
        }

        void publish() throws IOException {
            publish(Map.of(), p -> {});
        }

        /**
         * Compares each target with what the writer based its change on ({@code expected}, by
         * repository path) ahead of {@link #publish}, so that publish needs only a stat for a target
         * that still matches: its stat is noted, and the inode it will replace is linked into the
         * spare pool now. A target that differs is only read again by publish: a git command may
         * have been rewriting it (a stash, a reset), which publish's lock rules out.
         */
        void precheck(Map<String, Optional<String>> expected) throws IOException {
            for (Path[] m : moves) {
                Optional<String> want = expected.get(rel(m[1]));
                if (want == null) {
                    continue;
                }
                Object[] before = stat(m[1]);
                if (racy(before)) {
                    continue; // written moments ago (by the batch before, mostly): publish reads it anyway
                }
                if (!holdsAsCompared(m[1], want)) {
                    continue;
                }
                Object[] after = stat(m[1]);
                if (!java.util.Arrays.equals(before, after) || racy(after)) {
                    continue; // being written right now: publish reads it again
                }
                seen.put(m[1], new Seen(after, pool.linkSpare(m[1])));
            }
        }

        /**
         * Renames the temp files into place, except where the file no longer holds what the writer
         * based its change on ({@code expected}, by repository path): like JGit's FileSnapshot check,
         * it tells a concurrent save by a human from the daemon's own state, and the human's save wins.
         */
        void publish(Map<String, Optional<String>> expected, java.util.function.Consumer<String> skipped)
                throws IOException {
            publish(expected, skipped, true);
        }

        /**
         * As {@link #publish(Map, java.util.function.Consumer)}; with {@code syncDirs} false the
         * directories are not fsynced here but by {@link #syncDirs()} later (so a caller holding a
         * lock others wait for can make the renames durable after letting it go). A target
         * {@link #precheck} found changed is left alone; one it found as expected is renamed over
         * when its stat is still what precheck saw, and read again otherwise.
         */
        void publish(
                Map<String, Optional<String>> expected, java.util.function.Consumer<String> skipped, boolean syncDirs)
                throws IOException {
            // Any order is safe (the ledger already holds every line these files reflect and recovery
            // redoes what a crash cut short), so each directory's renames and its fsync run
            // concurrently with the other directories': one after the other, a batch of files in
            // sixteen directories paid for sixteen directory fsyncs in a row.
            Map<Path, List<Path[]>> byDir = new java.util.LinkedHashMap<>();
            for (Path[] m : moves) {
                byDir.computeIfAbsent(m[1].getParent(), d -> new ArrayList<>()).add(m);
            }
            syncs.forEach(dirs, dir -> {
                for (Path[] m : byDir.getOrDefault(dir, List.of())) {
                    String rel = rel(m[1]);
                    Seen s = seen.get(m[1]);
                    boolean unchanged = s != null && java.util.Arrays.equals(s.stat(), stat(m[1]));
                    Optional<String> want = expected.get(rel);
                    if (!unchanged && want != null && !holdsAsCompared(m[1], want)) {
                        pool.giveBack(m[0]);
                        if (s != null && s.keep() != null) {
                            Files.deleteIfExists(s.keep());
                        }
                        skipped.accept(rel);
                        continue;
                    }
                    pool.replace(m[0], m[1], s == null ? null : s.keep());
                }
                if (syncDirs) {
                    FileSyncs.fsyncDir(dir);
                }
            });
        }

        /** Fsyncs the directories the renames changed. */
        void syncDirs() throws IOException {
            syncs.forEach(dirs, FileSyncs::fsyncDir);
        }

        void abort() throws IOException {
            for (Path[] m : moves) {
                pool.giveBack(m[0]);
                Seen s = seen.get(m[1]);
                if (s != null && s.keep() != null) {
                    Files.deleteIfExists(s.keep());
                }
            }
        }
    }

    /** A target as {@link Staged#precheck} found it as expected: its stat, and the spare-pool link to its inode made ahead (null: none). */
    private record Seen(Object[] stat, Path keep) {}

    /** A file's identity, size and modification time; null when there is none. */
    private static Object[] stat(Path f) throws IOException {
        try {
            java.nio.file.attribute.BasicFileAttributes a = Files.readAttributes(
                    f, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return new Object[] {a.fileKey(), a.size(), a.lastModifiedTime(), a.isRegularFile()};
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /**
     * Whether a stat cannot vouch for the file's content: it was modified within the file
     * system's timestamp granularity of now, so a write in the same tick would leave the same
     * stat (JGit's racily clean snapshot).
     */
    private static boolean racy(Object[] stat) {
        return stat != null
                && ((java.nio.file.attribute.FileTime) stat[2]).toMillis() > System.currentTimeMillis() - RACY_MS;
    }

    /** Coarser than any kernel's timestamp tick (a jiffy is 1-10 ms). */
    private static final long RACY_MS = 20;

    /**
     * Whether {@code f} holds {@code want} (empty: no regular file there, a link included), only to
     * tell a human's save since the batch read it: a file that is not UTF-8 holds no text.
     */
    private static boolean holdsAsCompared(Path f, Optional<String> want) throws IOException {
        return want.isPresent()
                ? dev.memoryd.daemon.layout.Utf8.holds(f, want.get())
                : !Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS);
    }

    /** Removes temp files a killed writer left beside memory files. */
    void removeTempFiles() throws IOException {
        pool.clear();
        for (String top : new String[] {"users", ".slices"}) {
            Path d = root.resolve(top);
            if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try (java.util.stream.Stream<Path> s = Files.walk(d)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    if (p.getFileName().toString().endsWith(TMP_SUFFIX)
                            && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                        Files.delete(p);
                    }
                }
            }
        }
    }
}
