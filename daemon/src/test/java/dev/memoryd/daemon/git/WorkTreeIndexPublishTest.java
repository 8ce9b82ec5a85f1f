package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkTreeIndexPublishTest {
    @TempDir
    Path tmp;

    Repository repo;
    Path lock;
    ObjectId oldBlob;
    ObjectId newBlob;

    @BeforeEach
    void repository() throws Exception {
        try (Git git =
                Git.init().setDirectory(tmp.toFile()).setInitialBranch("main").call()) {
            repo = git.getRepository();
            Files.writeString(tmp.resolve("a.md"), "old\n");
            git.add().addFilepattern("a.md").call();
            git.commit().setMessage("a").setAuthor("t", "t@example.com").call();
        }
        lock = tmp.resolve(".git/index.lock");
        oldBlob = blob("old\n");
        Files.writeString(tmp.resolve("a.md"), "new\n");
        newBlob = blob("new\n");
    }

    private ObjectId blob(String text) throws Exception {
        try (ObjectInserter ins = repo.newObjectInserter()) {
            ObjectId id = ins.insert(Constants.OBJ_BLOB, text.getBytes(StandardCharsets.UTF_8));
            ins.flush();
            return id;
        }
    }

    private ObjectId indexBlob() throws Exception {
        return DirCache.read(repo.getIndexFile(), repo.getFS()).getEntry("a.md").getObjectId();
    }

    private WorkTreeIndex.Held held(WorkTreeIndex idx, boolean prepared) throws Exception {
        if (!prepared) {
            return idx.lock(0).orElseThrow();
        }
        WorkTreeIndex.Prepared p = idx.prepare(
                        Map.of("a.md", newBlob), Map.of(), Map.of(), Set.of(), x -> FileMode.REGULAR_FILE)
                .orElseThrow();
        return idx.lock(p, 0).orElseThrow();
    }

    private void publishThenRestore_putsTheIndexBeforeBack_andHoldsTheLockUntilClosed(boolean prepared)
            throws Exception {
        WorkTreeIndex idx = new WorkTreeIndex(repo, tmp);
        WorkTreeIndex.Held h = held(idx, prepared);
        h.publish(Map.of("a.md", newBlob), Map.of(), Set.of(), x -> FileMode.REGULAR_FILE);
        assertEquals(newBlob, indexBlob(), "published: the index records the batch before the ref moves");
        assertTrue(Files.exists(lock), "and the lock is still held");
        h.restore();
        assertEquals(oldBlob, indexBlob(), "restored: the index before is back");
        assertTrue(Files.exists(lock), "the lock is held while the batch is undone");
        h.close();
        assertFalse(Files.exists(lock), "closed: the lock is let go");
        assertEquals(oldBlob, indexBlob());
        assertFalse(Files.exists(tmp.resolve(".git/index.memoryd-before")));
    }

    /** The index as a `git stash pop` that conflicted on a.md leaves it: stages 1, 2 and 3, no 0. */
    private void conflictOnA() throws Exception {
        ObjectId theirs = blob("theirs\n");
        DirCache dc = repo.lockDirCache();
        org.eclipse.jgit.dircache.DirCacheBuilder b = dc.builder();
        for (int stage = 1; stage <= 3; stage++) {
            org.eclipse.jgit.dircache.DirCacheEntry e = new org.eclipse.jgit.dircache.DirCacheEntry("a.md", stage);
            e.setFileMode(FileMode.REGULAR_FILE);
            e.setObjectId(stage == 2 ? oldBlob : theirs);
            b.add(e);
        }
        assertTrue(b.commit());
    }

    private void assertOneEntryAtStageZero() throws Exception {
        DirCache dc = DirCache.read(repo.getIndexFile(), repo.getFS());
        int first = dc.findEntry("a.md");
        assertTrue(first >= 0);
        assertEquals(1, dc.nextEntry(first) - first, "one entry for a.md, not one per stage");
        assertEquals(0, dc.getEntry(first).getStage(), "and it is merged");
        assertEquals(newBlob, dc.getEntry(first).getObjectId());
    }

    @Test
    void aPathGitLeftInConflict_isOneMergedEntry_onceMemorydRecordsIt() throws Exception {
        conflictOnA();
        try (WorkTreeIndex.Held h = new WorkTreeIndex(repo, tmp).lock(0).orElseThrow()) {
            h.record(Map.of("a.md", newBlob), Map.of(), Set.of(), x -> FileMode.REGULAR_FILE);
        }
        assertOneEntryAtStageZero();
    }

    @Test
    void aPathGitLeftInConflict_isOneMergedEntry_inAnIndexPreparedAheadAndPublished() throws Exception {
        conflictOnA();
        WorkTreeIndex idx = new WorkTreeIndex(repo, tmp);
        WorkTreeIndex.Held h = held(idx, true);
        h.publish(Map.of("a.md", newBlob), Map.of(), Set.of(), x -> FileMode.REGULAR_FILE);
        h.release();
        assertOneEntryAtStageZero();
    }

    private void publishThenRelease_keepsTheIndexItPublished(boolean prepared) throws Exception {
        WorkTreeIndex idx = new WorkTreeIndex(repo, tmp);
        WorkTreeIndex.Held h = held(idx, prepared);
        h.publish(Map.of("a.md", newBlob), Map.of(), Set.of(), x -> FileMode.REGULAR_FILE);
        h.release();
        assertFalse(Files.exists(lock));
        assertEquals(newBlob, indexBlob());
        // The index before is removed after the lock is let go, in the background.
        Path before = tmp.resolve(".git/index.memoryd-before");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (Files.exists(before) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertFalse(Files.exists(before));
        h.close(); // a second release is nothing
        assertEquals(newBlob, indexBlob());
    }

    @Test
    void anIndexEditedUnderTheLock_publishedThenRestored_isTheIndexBefore() throws Exception {
        publishThenRestore_putsTheIndexBeforeBack_andHoldsTheLockUntilClosed(false);
    }

    @Test
    void aPreparedIndex_publishedThenRestored_isTheIndexBefore() throws Exception {
        publishThenRestore_putsTheIndexBeforeBack_andHoldsTheLockUntilClosed(true);
    }

    @Test
    void anIndexEditedUnderTheLock_publishedThenReleased_staysTheIndex() throws Exception {
        publishThenRelease_keepsTheIndexItPublished(false);
    }

    @Test
    void aPreparedIndex_publishedThenReleased_staysTheIndex() throws Exception {
        publishThenRelease_keepsTheIndexItPublished(true);
    }

    @Test
    void aHumansFileChangedInTheSecondGitLastWroteTheIndex_staysAChangeForGit_afterMemorydsIndex() throws Exception {
        // git's racy case: the file changes again (same size) within the second git wrote the index
        // in, so its stat matches the entry and only the index's own time tells git to look again.
        // (Ten seconds ago, so that memoryd's index is written in a later second, as it usually is.)
        Path b = tmp.resolve("b.txt");
        java.nio.file.attribute.FileTime entryTime =
                java.nio.file.attribute.FileTime.from(java.time.Instant.now().minusSeconds(10));
        Files.writeString(b, "10\n");
        Files.setLastModifiedTime(b, entryTime);
        git("add", "b.txt");
        git("commit", "-qm", "b");
        Files.setLastModifiedTime(repo.getIndexFile().toPath(), entryTime);
        Files.writeString(b, "11\n");
        Files.setLastModifiedTime(b, entryTime);
        // (No git status here: it would write the index with the entry smudged, as git does.)

        WorkTreeIndex idx = new WorkTreeIndex(repo, tmp);
        WorkTreeIndex.Held h = held(idx, true);
        h.publish(Map.of("a.md", newBlob), Map.of(), Set.of(), x -> FileMode.REGULAR_FILE);
        h.release();
        assertEquals(newBlob, indexBlob());

        assertTrue(
                git("status", "--porcelain").contains(" M b.txt"),
                "memoryd's index hid the human's change from git: " + git("status", "--porcelain"));
    }

    private String git(String... args) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("git", "-C", tmp.toString()));
        cmd.addAll(java.util.List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", args) + ": " + out);
        return out;
    }
}
