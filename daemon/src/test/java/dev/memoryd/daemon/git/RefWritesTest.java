package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the ledger names after these writes is durable first: a proposal's new objects are forced
 * before its branch names them, and the branch's ref file and the directories that hold it before
 * the call returns; a retired ref's new name is forced before its old one goes.
 */
class RefWritesTest {
    private static final PersonIdent WHO = new PersonIdent("t", "t@example.com", Instant.EPOCH, ZoneOffset.UTC);

    @TempDir
    Path root;

    /** What was forced, in order, with whether a given file existed at that moment. */
    private final List<Path> forced = new ArrayList<>();

    private final Map<Path, Boolean> existedWhenForced = new LinkedHashMap<>();

    @BeforeEach
    void init() throws IOException {
        GitStore.init(root, "main");
    }

    private static ObjectId commit(GitStore g, Map<String, String> files) throws IOException {
        try (CommitBatch b = g.batch()) {
            Map<String, byte[]> bytes = new LinkedHashMap<>();
            files.forEach((p, t) -> bytes.put(p, t.getBytes(StandardCharsets.UTF_8)));
            ObjectId c = b.commit(bytes, WHO, WHO, "c");
            assertEquals(RefMove.Result.MOVED, b.publish().result());
            return c;
        }
    }

    /** A new branch {@code name} at a commit of {@code parent} with {@code users/a.md} holding {@code text}. */
    private static ObjectId branch(Repository repo, String name, ObjectId parent, String text, RefWrites.Force force)
            throws IOException {
        return RefWrites.commitOnNewBranch(
                repo, name, parent, Map.of("users/a.md", text.getBytes(StandardCharsets.UTF_8)), WHO, WHO, name, force);
    }

    private RefWrites.Force recording(Path watched) {
        return p -> {
            forced.add(p);
            existedWhenForced.putIfAbsent(p, Files.exists(watched));
        };
    }

    /** The loose object files of every object of {@code commit} and its trees that are loose. */
    private static Set<Path> looseFilesOf(Repository repo, ObjectId commit) throws IOException {
        Path objects = repo.getDirectory().toPath().resolve("objects");
        Set<ObjectId> ids = new HashSet<>();
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = new TreeWalk(repo)) {
            RevCommit c = rw.parseCommit(commit);
            ids.add(c);
            ids.add(c.getTree());
            tw.addTree(c.getTree());
            tw.setRecursive(false);
            while (tw.next()) {
                ids.add(tw.getObjectId(0));
                if (tw.isSubtree()) {
                    tw.enterSubtree();
                }
            }
        }
        Set<Path> out = new HashSet<>();
        for (ObjectId id : ids) {
            Path f =
                    objects.resolve(id.name().substring(0, 2)).resolve(id.name().substring(2));
            if (Files.isRegularFile(f)) {
                out.add(f);
            }
        }
        return out;
    }

    @Test
    void aNewBranchsObjects_areForcedBeforeItsRef_andTheRefBeforeTheCallReturns() throws IOException {
        try (GitStore g = GitStore.open(root, "main")) {
            ObjectId head = commit(g, Map.of("users/a.md", "one\n", "users/b.md", "two\n"));
            Repository repo = g.repository();
            Path ref = repo.getDirectory().toPath().resolve("refs/heads/proposals/p1");
            Path packDir = repo.getDirectory().toPath().resolve("objects/pack");
            Set<Path> before = files(packDir);

            ObjectId c = branch(repo, "proposals/p1", head, "one, changed\n", recording(ref));

            assertEquals(c, repo.exactRef(Constants.R_HEADS + "proposals/p1").getObjectId());
            assertEquals(
                    Set.of(), looseFilesOf(repo, c), "no loose object: a gc could delete it before the ref names it");
            Set<Path> made = files(packDir);
            made.removeAll(before);
            assertEquals(2, made.size(), "one new pack and its index: " + made);
            for (Path f : made) {
                assertTrue(forced.contains(f), f + " forced; forced: " + forced);
                assertFalse(existedWhenForced.get(f), f + " forced before the ref named it");
                assertTrue(forced.indexOf(ref) > forced.indexOf(f), "the ref after the objects");
            }
            assertTrue(forced.contains(packDir), "the pack directory");
            assertTrue(forced.contains(ref), "the ref file");
            for (String dir : List.of("refs/heads/proposals", "refs/heads", "refs")) {
                assertTrue(forced.contains(repo.getDirectory().toPath().resolve(dir)), dir);
            }
            for (Path p : made) {
                if (p.toString().endsWith(".idx")) {
                    // only what the parent lacked: the commit, the root and `users` trees, the blob
                    assertEquals(
                            4,
                            org.eclipse.jgit.internal.storage.file.PackIndex.open(p.toFile())
                                    .getObjectCount());
                }
            }
        }
    }

    @Test
    void aGcWhileANewBranchsObjectsAreForced_leavesThemInPlace_andNoKeepFileAfter() throws Exception {
        try (GitStore g = GitStore.open(root, "main")) {
            ObjectId head = commit(g, Map.of("users/a.md", "one\n"));
            Repository repo = g.repository();
            List<String> gcs = new ArrayList<>();
            RefWrites.Force gcFirst = p -> {
                if (gcs.isEmpty()) { // between the objects written and the ref naming them
                    gcs.add(git("gc", "-q", "--prune=now"));
                }
            };

            ObjectId c = branch(repo, "proposals/p1", head, "one, proposed\n", gcFirst);

            assertEquals(List.of("0: "), gcs, "the gc ran and succeeded");
            assertTrue(
                    git("cat-file", "-e", c.name()).startsWith("0:"),
                    "the gc deleted the proposal's commit, which no ref named yet");
            assertEquals("0: one, proposed", git("show", "proposals/p1:users/a.md"));
            String fsck = git("fsck", "--strict", "--no-dangling");
            assertTrue(fsck.startsWith("0:"), fsck);
            try (var s = Files.list(repo.getDirectory().toPath().resolve("objects/pack"))) {
                assertEquals(
                        List.of(),
                        s.filter(p -> p.toString().endsWith(".keep")).toList(),
                        "the keep file goes once the ref names the pack's objects");
            }
        }
    }

    private String git(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", root.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            return p.waitFor() + ": " + out.strip();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static Set<Path> files(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return new HashSet<>();
        }
        try (var s = Files.list(dir)) {
            return new HashSet<>(s.toList());
        }
    }

    @Test
    void aRetiredRef_isForcedUnderItsNewNameBeforeTheOldOneGoes() throws IOException {
        try (GitStore g = GitStore.open(root, "main")) {
            ObjectId head = commit(g, Map.of("users/a.md", "one\n"));
            Repository repo = g.repository();
            ObjectId tip = branch(repo, "exp", head, "exp\n", RefWrites.Force.FSYNC);
            Path old = repo.getDirectory().toPath().resolve("refs/heads/exp");
            Path retired = repo.getDirectory().toPath().resolve("refs/memoryd/deleted/exp");

            RefWrites.retireRef(repo, "refs/heads/exp", "refs/memoryd/deleted/exp", tip, recording(old));

            assertFalse(Files.exists(old));
            assertEquals(tip, repo.exactRef("refs/memoryd/deleted/exp").getObjectId());
            assertTrue(forced.contains(retired), "the new name's file: " + forced);
            assertTrue(existedWhenForced.get(retired), "forced while the old name was still there");
            for (String dir : List.of("refs/memoryd/deleted", "refs/memoryd", "refs")) {
                assertTrue(forced.contains(repo.getDirectory().toPath().resolve(dir)), dir);
            }
            Path heads = repo.getDirectory().toPath().resolve("refs/heads");
            assertTrue(
                    forced.lastIndexOf(heads) > forced.indexOf(retired), "the old name's directory after its delete");
        }
    }
}
