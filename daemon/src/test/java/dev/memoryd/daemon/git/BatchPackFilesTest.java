package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch's pack and index: written into files made ahead, on another thread, not created on the
 * writer's way; and forced to disk, with their directory, before the branch names the batch's commits.
 */
class BatchPackFilesTest {
    @TempDir
    Path root;

    private static final PersonIdent WHO =
            new PersonIdent("t", "t@example.com", Instant.EPOCH, java.time.ZoneOffset.UTC);

    @Test
    void aBatchsPackAndIndexAreFilesMadeAheadOnceThePoolIsFilled() throws Exception {
        GitStore.init(root, "main");
        Path ahead = root.resolve(".git/memoryd/ahead");
        try (GitStore g = GitStore.open(root, "main")) {
            commit(g, 0); // the first flush makes its own files and asks for the pool to be filled
            int used = 0;
            for (int b = 1; b <= 6; b++) {
                awaitFiles(ahead, 4);
                Set<Object> madeAhead = inodes(ahead);
                Set<Object> before = inodes(root.resolve(".git/objects/pack"));
                commit(g, b);
                awaitNoKeep(root.resolve(".git/objects/pack")); // one until the ref moved, removed after
                Set<Object> added = inodes(root.resolve(".git/objects/pack"));
                added.removeAll(before);
                assertEquals(2, added.size(), "one pack and its index");
                assertTrue(madeAhead.containsAll(added), "batch " + b + ": the pack and index were files made ahead");
                used += 2;
            }
            assertEquals(12, used);
            assertEquals("batch 6\n", new String(g.read(g.head(), "notes.md").orElseThrow(), StandardCharsets.UTF_8));
        }
        try (Stream<Path> s = Files.list(ahead)) {
            assertEquals(List.of(), s.toList(), "closing the store removes the files not taken");
        }
        Process fsck = new ProcessBuilder("git", "-C", root.toString(), "fsck", "--strict", "--no-dangling")
                .redirectErrorStream(true)
                .start();
        String out = new String(fsck.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, fsck.waitFor(), out);
    }

    @Test
    void aFileMadeAheadThatIsNoLongerAPlainFileIsNotWrittenThrough() throws Exception {
        GitStore.init(root, "main");
        Path ahead = root.resolve(".git/memoryd/ahead");
        Path victim = root.resolve("victim.txt");
        Files.writeString(victim, "keep me");
        try (GitStore g = GitStore.open(root, "main")) {
            commit(g, 0);
            awaitFiles(ahead, 4);
            try (Stream<Path> s = Files.list(ahead)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Files.delete(p);
                    Files.createSymbolicLink(p, victim); // someone put links where the files were
                }
            }
            commit(g, 1);
            assertEquals("batch 1\n", new String(g.read(g.head(), "notes.md").orElseThrow(), StandardCharsets.UTF_8));
        }
        assertArrayEquals("keep me".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(victim));
        try (Stream<Path> s = Files.list(ahead)) {
            assertEquals(List.of(), s.toList(), "the links were removed, not followed");
        }
    }

    @Test
    void filesAGoneProcessMadeAreRemovedOnceTheStoreWrites() throws Exception {
        GitStore.init(root, "main");
        Path ahead = Files.createDirectories(root.resolve(".git/memoryd/ahead"));
        long gone = 99_999_999L; // above the largest pid Linux hands out (2^22)
        Path left = Files.createFile(ahead.resolve(gone + "-1.tmp"));
        try (GitStore g = GitStore.open(root, "main")) {
            assertTrue(Files.exists(left), "a store opened only to read leaves the directory alone");
            commit(g, 0);
            awaitFiles(ahead, 4);
            assertFalse(Files.exists(left), "a file of a process that is gone is removed");
        }
    }

    @Test
    void aTakeAfterThePoolClosedFindsNoFileAndFailsNothing() throws Exception {
        FilesAhead pool = new FilesAhead(Files.createDirectories(root.resolve(".git")));
        pool.close(); // a flush racing the store's close
        assertEquals(null, pool.take(), "the flush makes its own files");
        assertEquals(null, pool.take());
    }

    @Test
    void thePackIsForcedWhileTheBranchStillNamesTheCommitBefore() throws Exception {
        GitStore.init(root, "main");
        Path ref = root.resolve(".git/refs/heads/main");
        Path packDir = root.resolve(".git/objects/pack");
        try (GitStore g = GitStore.open(root, "main")) {
            List<String> forced = new ArrayList<>();
            g.forcingWith((p, metadata) -> {
                String kind = p.equals(packDir)
                        ? "dir" + (metadata ? "" : " without its metadata")
                        : p.getFileName().toString().endsWith(".pack")
                                ? "pack"
                                : p.getFileName().toString().endsWith(".idx") ? "idx" : "other " + p;
                forced.add(kind + " while the branch is at "
                        + (Files.exists(ref) ? Files.readString(ref).strip() : "none"));
                Forcer.FILES.force(p, metadata);
            });
            for (int b = 0; b < 3; b++) {
                String before = Files.exists(ref) ? Files.readString(ref).strip() : "none";
                forced.clear();
                ObjectId tip = commit(g, b);
                assertEquals(
                        List.of(
                                "pack while the branch is at " + before,
                                "idx while the branch is at " + before,
                                "dir while the branch is at " + before),
                        forced,
                        "batch " + b);
                assertEquals(tip.name(), Files.readString(ref).strip());
            }
        }
        try (var s = Files.list(packDir)) {
            assertTrue(s.anyMatch(p -> p.toString().endsWith(".pack")));
        }
    }

    /**
     * A human's {@code git gc --prune=now} (a {@code git repack -a -d}) between a batch's flush and
     * its ref's move: the batch's pack is kept (its keep file), so the branch never names a commit
     * that is gone; the keep file goes once the ref has moved, and git's next gc takes the pack in.
     * Before, the gc dropped the batch's objects (reachable from no ref yet) and deleted its pack:
     * {@code git fsck} found the commit missing, and every later gc failed on it.
     */
    @Test
    void aGcBetweenABatchsFlushAndItsRefsMove_keepsTheBatchsPack() throws Exception {
        GitStore.init(root, "main");
        Path packDir = root.resolve(".git/objects/pack");
        try (GitStore g = GitStore.open(root, "main")) {
            commit(g, 0);
            awaitNoKeep(packDir);
            ObjectId tip;
            try (CommitBatch b = g.batch()) {
                tip = b.commit(Map.of("notes.md", "batch 1\n".getBytes(StandardCharsets.UTF_8)), WHO, WHO, "b1");
                b.flush();
                String gc = git("gc", "-q", "--prune=now");
                assertTrue(gc.startsWith("0:"), gc);
                assertTrue(
                        git("cat-file", "-e", tip.name()).startsWith("0:"),
                        "the gc dropped the batch's commit, which no ref named yet");
                assertEquals(1, keeps(packDir).size(), "the flushed pack is kept until its ref moves");
                b.forceFlushed();
                assertEquals(RefMove.Result.MOVED, b.moveRef().result());
            }
            awaitNoKeep(packDir); // the keep file goes once the ref has moved
            String fsck = git("fsck", "--strict", "--no-dangling");
            assertTrue(fsck.startsWith("0:"), fsck);
            assertTrue(git("cat-file", "-e", tip.name()).startsWith("0:"), "the batch's commit is there");
            String gc = git("gc", "-q", "--prune=now");
            assertTrue(gc.startsWith("0:"), gc);
            assertEquals("batch 1\n", git("show", "main:notes.md").substring(3) + "\n");
        }
    }

    @Test
    void aKeepFileAGoneProcessLeft_isRemovedOnceTheStoreWrites_andAnyOtherKeepStays() throws Exception {
        GitStore.init(root, "main");
        Path packDir = Files.createDirectories(root.resolve(".git/objects/pack"));
        Path ours = Files.writeString(
                packDir.resolve("pack-1111111111111111111111111111111111111111.keep"),
                BatchPackInserter.KEEP_PREFIX + "99999999 until its ref moves\n");
        Path theirs = Files.writeString(
                packDir.resolve("pack-2222222222222222222222222222222222222222.keep"),
                "receive-pack 99999999 on somewhere\n");
        try (GitStore g = GitStore.open(root, "main")) {
            commit(g, 0);
            awaitFiles(root.resolve(".git/memoryd/ahead"), 4);
            assertFalse(Files.exists(ours), "a keep of a killed daemon's would hold its pack from git's gc for good");
            assertTrue(Files.exists(theirs), "a keep git or a human made is theirs");
        }
    }

    private static void awaitNoKeep(Path packDir) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!keeps(packDir).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(Set.of(), keeps(packDir), "a keep file stayed after its batch");
    }

    private static Set<Object> keeps(Path packDir) throws Exception {
        try (Stream<Path> s = Files.list(packDir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".keep"))
                    .map(p -> {
                        try {
                            return Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class)
                                    .fileKey();
                        } catch (java.io.IOException e) {
                            return p; // removed meanwhile
                        }
                    })
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    private String git(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", root.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor() + ": " + out.strip();
    }

    /** One commit of {@code notes.md} in a batch of its own, published; its id. */
    private static ObjectId commit(GitStore g, int b) throws Exception {
        try (CommitBatch batch = g.batch()) {
            ObjectId tip = batch.commit(
                    Map.of("notes.md", ("batch " + b + "\n").getBytes(StandardCharsets.UTF_8)), WHO, WHO, "b" + b);
            batch.publish().orThrow();
            return tip;
        }
    }

    private static void awaitFiles(Path dir, int n) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> s = Files.list(dir)) {
                    if (s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                                    .count()
                            >= n) {
                        return;
                    }
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no " + n + " files were made ahead in " + dir);
    }

    private static Set<Object> inodes(Path dir) throws Exception {
        Set<Object> out = new HashSet<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                out.add(Files.readAttributes(
                                p, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                        .fileKey());
            }
        }
        return out;
    }
}
