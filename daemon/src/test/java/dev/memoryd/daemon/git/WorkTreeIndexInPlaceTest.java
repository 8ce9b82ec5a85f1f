package dev.memoryd.daemon.git;

import static dev.memoryd.daemon.git.GitCli.git;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An index that records only paths it already holds has its entries set where they stand; one
 * that adds or removes a path, or that git wrote with its cache of trees, is edited whole. Either
 * way git must read the same index: every entry at its blob and clean against its file, and the
 * tree git writes from it the tree of exactly those entries.
 */
class WorkTreeIndexInPlaceTest {
    @TempDir
    Path tmp;

    Repository repo;
    /** What the index must record: path to blob. */
    final Map<String, ObjectId> expected = new TreeMap<>();

    @BeforeEach
    void repository() throws Exception {
        try (Git g =
                Git.init().setDirectory(tmp.toFile()).setInitialBranch("main").call()) {
            repo = g.getRepository();
        }
        for (String p : List.of("d1/a.md", "d1/b.md", "d2/c.md", "d2/e/f.md", "top.md")) {
            expected.put(p, write(p, "first " + p + "\n"));
        }
        git(tmp, "add", "-A");
        git(tmp, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "files");
    }

    private ObjectId write(String path, String text) throws Exception {
        Path f = tmp.resolve(path);
        Files.createDirectories(f.getParent());
        Files.writeString(f, text);
        try (ObjectInserter ins = repo.newObjectInserter()) {
            ObjectId id = ins.insert(Constants.OBJ_BLOB, text.getBytes(StandardCharsets.UTF_8));
            ins.flush();
            return id;
        }
    }

    private void publish(WorkTreeIndex idx, Map<String, ObjectId> blobs, Set<String> removed) throws Exception {
        WorkTreeIndex.Prepared p = idx.prepare(blobs, Map.of(), Map.of(), removed, x -> FileMode.REGULAR_FILE)
                .orElseThrow();
        WorkTreeIndex.Held h = idx.lock(p, 0).orElseThrow();
        h.publish(blobs, Map.of(), removed, x -> FileMode.REGULAR_FILE);
        h.release();
    }

    /** What git reads from the index: each entry's blob, the tree it writes, and nothing unstaged. */
    private void assertGitReadsTheExpectedIndex(String when) throws Exception {
        Map<String, ObjectId> staged = new TreeMap<>();
        for (String line : git(tmp, "ls-files", "-s").split("\n")) {
            String[] f = line.split("\\s+", 4);
            assertEquals("0", f[2], when + ": " + line);
            staged.put(f[3], ObjectId.fromString(f[1]));
        }
        assertEquals(expected, staged, when + ": the index's entries");
        assertEquals("", git(tmp, "diff", "--name-only"), when + ": every entry is clean against its file");
        String tree = git(tmp, "write-tree");
        Map<String, ObjectId> inTree = new TreeMap<>();
        for (String line : git(tmp, "ls-tree", "-r", tree).split("\n")) {
            String[] f = line.split("\\s+", 4);
            inTree.put(f[3], ObjectId.fromString(f[2]));
        }
        assertEquals(expected, inTree, when + ": the tree git writes from the index");
    }

    @Test
    void seededBatches_ofChangedAddedAndRemovedPaths_leaveTheIndexGitExpects() throws Exception {
        Random rnd = new Random(20261128);
        WorkTreeIndex idx = new WorkTreeIndex(repo, tmp);
        int added = 0;
        for (int round = 0; round < 60; round++) {
            Map<String, ObjectId> blobs = new TreeMap<>();
            Set<String> removed = new HashSet<>();
            List<String> paths = new ArrayList<>(expected.keySet());
            for (int k = 1 + rnd.nextInt(3); k > 0; k--) {
                String p = paths.get(rnd.nextInt(paths.size()));
                blobs.put(p, write(p, "round " + round + " " + "x".repeat(rnd.nextInt(40)) + "\n"));
            }
            int kind = rnd.nextInt(10);
            if (kind == 0) {
                String p = "d" + (1 + rnd.nextInt(3)) + "/new-" + added++ + ".md";
                blobs.put(p, write(p, "new " + p + "\n"));
            } else if (kind == 1 && paths.size() > 3) {
                String p = paths.get(rnd.nextInt(paths.size()));
                blobs.remove(p);
                Files.delete(tmp.resolve(p));
                removed.add(p);
            }
            publish(idx, blobs, removed);
            expected.putAll(blobs);
            expected.keySet().removeAll(removed);
            assertGitReadsTheExpectedIndex("round " + round);
            if (rnd.nextInt(12) == 0) {
                // git writes the index with its cache of trees: the next batch starts from git's.
                git(tmp, "add", "-A");
                git(tmp, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "r" + round);
                assertGitReadsTheExpectedIndex("after git's commit in round " + round);
            }
        }
    }

    @Test
    void anIndexGitWroteWithItsTrees_recordedUnderTheLock_neverKeepsAStaleTree() throws Exception {
        git(tmp, "write-tree"); // git stores its cache of trees in the index
        ObjectId changed = write("d1/a.md", "changed\n");
        try (WorkTreeIndex.Held h = new WorkTreeIndex(repo, tmp).lock(0).orElseThrow()) {
            h.record(Map.of("d1/a.md", changed), Map.of(), Set.of(), x -> FileMode.REGULAR_FILE);
        }
        expected.put("d1/a.md", changed);
        assertGitReadsTheExpectedIndex("recorded over git's index");
    }

    @Test
    void anIndexGitWroteWithItsTrees_preparedAhead_neverKeepsAStaleTree() throws Exception {
        git(tmp, "write-tree");
        WorkTreeIndex idx = new WorkTreeIndex(repo, tmp);
        ObjectId changed = write("d2/e/f.md", "changed\n");
        publish(idx, Map.of("d2/e/f.md", changed), Set.of());
        expected.put("d2/e/f.md", changed);
        assertGitReadsTheExpectedIndex("prepared from git's index");
        git(tmp, "write-tree"); // git's trees again, in the index memoryd put in place
        changed = write("d2/c.md", "changed too\n");
        publish(idx, Map.of("d2/c.md", changed), Set.of());
        expected.put("d2/c.md", changed);
        assertGitReadsTheExpectedIndex("prepared again after git wrote its trees");
    }
}
