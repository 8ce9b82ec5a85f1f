package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.TreeFormatter;

/**
 * In-memory image of one branch's tree that re-hashes only the directories on changed paths,
 * so the cost of a commit depends on the depth and fan-out of what changed, not on history.
 * Entries are kept in git's tree order (name bytes, a directory sorting as if its name ended in
 * '/'), so writing a tree never sorts.
 *
 * <p>Each file keeps the mode its entry had (executable, symlink, submodule link): memoryd writes
 * only regular files' contents, and an entry it writes keeps the mode a human committed it with.
 *
 * <p>Not thread-safe: owned by the single writer.
 */
final class TreeModel {
    /** A name in git's tree order; the sort bytes are computed once, on insertion. */
    private record Key(String name, boolean dir, byte[] sort) implements Comparable<Key> {
        static Key of(String name, boolean dir) {
            return new Key(name, dir, (dir ? name + "/" : name).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public int compareTo(Key o) {
            return java.util.Arrays.compareUnsigned(sort, o.sort);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.name.equals(name) && k.dir == dir;
        }

        @Override
        public int hashCode() {
            return name.hashCode() * 31 + (dir ? 1 : 0);
        }
    }

    /** A non-directory entry: its object and its git mode. */
    private record Leaf(ObjectId id, FileMode mode) {}

    private static final class Dir {
        final TreeMap<Key, Object> entries = new TreeMap<>(); // Leaf or Dir
        final Map<String, Key> byName = new HashMap<>();
        ObjectId id; // null when dirty
        /**
         * The tree object's content as last written, kept while only entries' ids change since: a
         * changed id is patched in place, so a commit that changes one file of a large directory
         * (the ledger's group of segments) re-hashes it without walking its entries. Null once an
         * entry is added, removed, or changes kind or mode.
         */
        byte[] raw;
        /** Where each entry's 20-byte id starts in {@link #raw}. */
        final Map<String, Integer> idAt = new HashMap<>();
        /** Subdirectories changed since {@link #raw} was written, whose ids are patched in at the next write. */
        final java.util.Set<String> dirtyDirs = new java.util.HashSet<>();

        Object get(String name) {
            Key k = byName.get(name);
            return k == null ? null : entries.get(k);
        }

        /** Marks a subdirectory as changed below: its id in {@link #raw} is patched at the next write. */
        void descend(String name) {
            id = null;
            if (raw != null) {
                dirtyDirs.add(name);
            }
        }

        void put(String name, Object value) {
            Key old = byName.get(name);
            boolean dir = value instanceof Dir;
            Object was = old == null ? null : entries.get(old);
            if (raw != null) {
                if (was instanceof Leaf a && value instanceof Leaf b && a.mode().equals(b.mode())) {
                    b.id().copyRawTo(raw, idAt.get(name));
                } else {
                    forget();
                }
            }
            if (old != null && old.dir() != dir) {
                entries.remove(old);
                old = null;
            }
            Key k = old != null ? old : Key.of(name, dir);
            byName.put(name, k);
            entries.put(k, value);
        }

        void remove(String name) {
            Key k = byName.remove(name);
            if (k != null) {
                entries.remove(k);
                forget();
            }
        }

        /** Drops {@link #raw}: the next write formats every entry again. */
        void forget() {
            raw = null;
            idAt.clear();
            dirtyDirs.clear();
        }
    }

    private final Dir root = new Dir();

    /**
     * Sets a file's blob, keeping the mode of the entry it replaces when that was an executable
     * file (a symlink or submodule replaced by memoryd's text becomes a regular file); creates
     * parent directories.
     */
    void put(String path, ObjectId blob) {
        put(path, blob, null);
    }

    /** Sets an entry with its mode as read from a tree (null: as {@link #put(String, ObjectId)}). */
    void put(String path, ObjectId blob, FileMode mode) {
        String[] parts = path.split("/");
        Dir d = root;
        d.id = null;
        for (int i = 0; i < parts.length - 1; i++) {
            Object next = d.get(parts[i]);
            if (!(next instanceof Dir)) {
                next = new Dir();
                d.put(parts[i], next);
            } else {
                d.descend(parts[i]);
            }
            d = (Dir) next;
            d.id = null;
        }
        String name = parts[parts.length - 1];
        if (mode == null) {
            mode = d.get(name) instanceof Leaf old && old.mode() == FileMode.EXECUTABLE_FILE
                    ? FileMode.EXECUTABLE_FILE
                    : FileMode.REGULAR_FILE;
        }
        d.put(name, new Leaf(blob, mode));
    }

    /** The mode of the file at a path, or null when there is none. */
    FileMode mode(String path) {
        Leaf l = leaf(path);
        return l == null ? null : l.mode();
    }

    /** Removes a file, and directories it leaves empty; a missing path is no change. */
    void remove(String path) {
        String[] parts = path.split("/");
        Dir[] chain = new Dir[parts.length];
        Dir d = root;
        for (int i = 0; i < parts.length - 1; i++) {
            chain[i] = d;
            Object next = d.get(parts[i]);
            if (!(next instanceof Dir)) {
                return;
            }
            d = (Dir) next;
        }
        chain[parts.length - 1] = d;
        if (!(d.get(parts[parts.length - 1]) instanceof Leaf)) {
            return;
        }
        for (int i = parts.length - 2; i >= 0; i--) {
            chain[i].descend(parts[i]);
        }
        chain[parts.length - 1].id = null;
        for (int i = parts.length - 1; i >= 0; i--) {
            chain[i].remove(parts[i]);
            if (i == 0 || !chain[i].entries.isEmpty()) {
                break;
            }
        }
    }

    /** Forgets every entry (before seeding from another commit). */
    void clear() {
        root.entries.clear();
        root.byName.clear();
        root.forget();
        root.id = null;
    }

    /** The blob at a path, or null. */
    ObjectId blob(String path) {
        Leaf l = leaf(path);
        return l == null ? null : l.id();
    }

    private Leaf leaf(String path) {
        String[] parts = path.split("/");
        Dir d = root;
        for (int i = 0; i < parts.length - 1; i++) {
            Object next = d.get(parts[i]);
            if (!(next instanceof Dir)) {
                return null;
            }
            d = (Dir) next;
        }
        Object o = d.get(parts[parts.length - 1]);
        return o instanceof Leaf l ? l : null;
    }

    ObjectId write(ObjectInserter ins) throws IOException {
        return write(root, ins);
    }

    private static ObjectId write(Dir d, ObjectInserter ins) throws IOException {
        if (d.id != null) {
            return d.id;
        }
        if (d.raw != null) {
            for (String name : d.dirtyDirs) {
                write((Dir) d.get(name), ins).copyRawTo(d.raw, d.idAt.get(name));
            }
            d.dirtyDirs.clear();
            d.id = insert(d, d.raw, ins);
            return d.id;
        }
        int size = 0;
        for (Map.Entry<Key, Object> e : d.entries.entrySet()) {
            size += TreeFormatter.entrySize(
                    e.getValue() instanceof Leaf l ? l.mode() : FileMode.TREE,
                    e.getKey().sort().length - (e.getKey().dir() ? 1 : 0));
        }
        // The format TreeFormatter writes (mode, space, name, NUL, id), by hand to know where each id lies.
        byte[] raw = new byte[size];
        int at = 0;
        for (Map.Entry<Key, Object> e : d.entries.entrySet()) {
            FileMode mode;
            ObjectId id;
            if (e.getValue() instanceof Dir sub) {
                mode = FileMode.TREE;
                id = write(sub, ins);
            } else {
                Leaf l = (Leaf) e.getValue();
                mode = l.mode();
                id = l.id();
            }
            mode.copyTo(raw, at);
            at += mode.copyToLength();
            raw[at++] = ' ';
            byte[] name = e.getKey().sort();
            int nameLength = name.length - (e.getKey().dir() ? 1 : 0);
            System.arraycopy(name, 0, raw, at, nameLength);
            at += nameLength;
            raw[at++] = 0;
            d.idAt.put(e.getKey().name(), at);
            id.copyRawTo(raw, at);
            at += Constants.OBJECT_ID_LENGTH;
        }
        d.raw = raw;
        d.dirtyDirs.clear();
        d.id = insert(d, raw, ins);
        return d.id;
    }

    /** A batch's inserter stores the directory's tree as a delta against its last version where it can. */
    private static ObjectId insert(Dir d, byte[] raw, ObjectInserter ins) throws IOException {
        return ins instanceof BatchPackInserter b ? b.insertTree(d, raw) : ins.insert(Constants.OBJ_TREE, raw);
    }
}
