package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a git command wrote without moving the branch is put back only when it is a reset's
 * rollback: the index a merge left in conflict (a {@code stash pop}) holds changes someone asked
 * for, the human's own among them.
 */
class RolledBackTreeTest {
    private static final PersonIdent WHO = new PersonIdent("t", "t@example.com", Instant.EPOCH, ZoneOffset.UTC);

    @TempDir
    Path root;

    private GitStore git;

    @BeforeEach
    void twoCommits() throws IOException {
        GitStore.init(root, "main");
        git = GitStore.open(root, "main");
        commit(Map.of("a.md", "a one\n", "b.md", "b one\n"));
        commit(Map.of("a.md", "a two\n", "b.md", "b two\n"));
        write("a.md", "a two\n");
        write("b.md", "b two\n");
    }

    @org.junit.jupiter.api.AfterEach
    void close() {
        git.close();
    }

    private void commit(Map<String, String> files) throws IOException {
        java.util.Map<String, byte[]> bytes = new java.util.HashMap<>();
        files.forEach((p, t) -> bytes.put(p, t.getBytes(StandardCharsets.UTF_8)));
        try (CommitBatch b = git.batch()) {
            b.commit(bytes, WHO, WHO, "c");
            assertEquals(RefMove.Result.MOVED, b.publish().result());
        }
    }

    private void write(String path, String text) throws IOException {
        Files.writeString(root.resolve(path), text, StandardCharsets.UTF_8);
    }

    private static ObjectId blob(String text) {
        try (ObjectInserter.Formatter f = new ObjectInserter.Formatter()) {
            return f.idFor(Constants.OBJ_BLOB, text.getBytes(StandardCharsets.UTF_8));
        }
    }

    private static DirCacheEntry entry(String path, int stage, String text) {
        DirCacheEntry e = new DirCacheEntry(path, stage);
        e.setFileMode(FileMode.REGULAR_FILE);
        e.setObjectId(blob(text));
        return e;
    }

    private static DirCache index(DirCacheEntry... entries) {
        DirCache dc = DirCache.newInCore();
        DirCacheBuilder b = dc.builder();
        for (DirCacheEntry e : entries) {
            b.add(e);
        }
        b.finish();
        return dc;
    }

    @Test
    void aResetWhoseRefMoveFailed_getsTheBranchsVersionBack() throws IOException {
        write("a.md", "a one\n"); // git wrote the older commit's file and recorded it in the index
        Map<String, ObjectId> repaired =
                RolledBackTree.repair(git, root, index(entry("a.md", 0, "a one\n"), entry("b.md", 0, "b two\n")));
        assertEquals(Map.of("a.md", blob("a two\n")), repaired);
        assertEquals("a two\n", Files.readString(root.resolve("a.md")));
    }

    @Test
    void aStashPopThatConflicted_keepsTheChangeItStagedCleanly() throws IOException {
        // The pop brought back the human's save of a.md (staged, as git stages what merged cleanly)
        // and left b.md in conflict.
        write("a.md", "a two\nthe human's own line\n");
        write("b.md", "<<<<<<< Updated upstream\nb two\n=======\nb three\n>>>>>>> Stashed changes\n");
        Map<String, ObjectId> repaired = RolledBackTree.repair(
                git,
                root,
                index(
                        entry("a.md", 0, "a two\nthe human's own line\n"),
                        entry("b.md", 1, "b one\n"),
                        entry("b.md", 2, "b two\n"),
                        entry("b.md", 3, "b three\n")));
        assertEquals(Map.of(), repaired);
        assertEquals("a two\nthe human's own line\n", Files.readString(root.resolve("a.md")));
    }
}
