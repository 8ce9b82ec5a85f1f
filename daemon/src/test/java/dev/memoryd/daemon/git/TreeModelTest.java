package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.junit.jupiter.api.Test;

/**
 * The tree ids {@link TreeModel} writes, after any sequence of changes, are the ones JGit's own
 * index builds for the same files: the ids patched into a kept tree and those formatted anew agree.
 */
class TreeModelTest {
    private static final String[] DIRS = {"ledger", "main", "0000", "0001", "users", "sam", "parts", "a b", "é"};
    private static final String[] FILES = {"x.md", "00000001.ndjson", "00000002.ndjson", "z", "a.b", "A", "überall.md"};

    @Test
    void seededChangesWriteTheTreesJGitBuildsForTheSameFiles() throws Exception {
        for (long seed = 1; seed <= 40; seed++) {
            Random rnd = new Random(seed);
            TreeModel model = new TreeModel();
            Map<String, ObjectId> blobs = new TreeMap<>();
            Map<String, FileMode> modes = new TreeMap<>();
            List<String> paths = paths(rnd);
            try (Hashing ins = new Hashing()) {
                for (int step = 0; step < 300; step++) {
                    String p = paths.get(rnd.nextInt(paths.size()));
                    int what = rnd.nextInt(10);
                    if (what < 6) {
                        ObjectId blob = ins.idFor(Constants.OBJ_BLOB, ("v" + step).getBytes());
                        model.put(p, blob);
                        FileMode before = modes.get(p);
                        modes.put(p, before == FileMode.EXECUTABLE_FILE ? before : FileMode.REGULAR_FILE);
                        blobs.put(p, blob);
                    } else if (what < 8) {
                        model.remove(p);
                        blobs.remove(p);
                        modes.remove(p);
                    } else {
                        FileMode m = rnd.nextBoolean() ? FileMode.EXECUTABLE_FILE : FileMode.SYMLINK;
                        ObjectId blob = ins.idFor(Constants.OBJ_BLOB, ("m" + step).getBytes());
                        model.put(p, blob, m);
                        modes.put(p, m);
                        blobs.put(p, blob);
                    }
                    if (rnd.nextInt(3) == 0 || step == 299) {
                        ObjectId written = model.write(ins);
                        assertEquals(jgitTree(blobs, modes, ins), written, "seed " + seed + ", step " + step);
                    }
                }
            }
        }
    }

    @Test
    void aFileKeepsTheModeItWasCommittedWithWhenOnlyItsContentChanges() throws Exception {
        TreeModel model = new TreeModel();
        try (Hashing ins = new Hashing()) {
            ObjectId a = ins.idFor(Constants.OBJ_BLOB, "a".getBytes());
            ObjectId b = ins.idFor(Constants.OBJ_BLOB, "b".getBytes());
            model.put("bin/run.sh", a, FileMode.EXECUTABLE_FILE);
            model.write(ins);
            model.put("bin/run.sh", b);
            ObjectId written = model.write(ins);
            assertEquals(FileMode.EXECUTABLE_FILE, model.mode("bin/run.sh"));
            assertEquals(
                    jgitTree(Map.of("bin/run.sh", b), Map.of("bin/run.sh", FileMode.EXECUTABLE_FILE), ins), written);
            model.remove("bin/run.sh");
            assertNull(model.blob("bin/run.sh"));
            assertEquals(jgitTree(Map.of(), Map.of(), ins), model.write(ins));
        }
    }

    /** Names objects without storing them. */
    private static final class Hashing extends ObjectInserter.Formatter {
        @Override
        public ObjectId insert(int type, byte[] data, int off, int len) {
            return idFor(type, data, off, len);
        }

        @Override
        public ObjectId insert(int type, long length, java.io.InputStream in) throws java.io.IOException {
            return idFor(type, length, in);
        }
    }

    /** Paths whose directories never share a name with a file, as in a repository git can hold. */
    private static List<String> paths(Random rnd) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            StringBuilder b = new StringBuilder();
            int depth = rnd.nextInt(4);
            for (int d = 0; d < depth; d++) {
                b.append(DIRS[rnd.nextInt(DIRS.length)]).append('/');
            }
            out.add(b.append(FILES[rnd.nextInt(FILES.length)]).toString());
        }
        return out;
    }

    private static ObjectId jgitTree(Map<String, ObjectId> blobs, Map<String, FileMode> modes, ObjectInserter ins)
            throws Exception {
        DirCache dc = DirCache.newInCore();
        DirCacheBuilder b = dc.builder();
        for (Map.Entry<String, ObjectId> e : new TreeMap<>(blobs).entrySet()) {
            DirCacheEntry ent = new DirCacheEntry(e.getKey());
            ent.setFileMode(modes.get(e.getKey()));
            ent.setObjectId(e.getValue());
            b.add(ent);
        }
        b.finish();
        return dc.writeTree(ins);
    }
}
