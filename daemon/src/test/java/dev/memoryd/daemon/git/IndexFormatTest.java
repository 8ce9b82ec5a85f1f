package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The forms of git's index memoryd cannot read are told apart from those it can, on indexes git
 * itself wrote: split ({@code link}) and sparse ({@code sdir}) are found in versions 2 to 4, with
 * paths of every length, extended flags and the entries a split index keeps without a name; the
 * others (version 4, the untracked cache) are left to JGit, which reads them.
 */
class IndexFormatTest {
    @TempDir
    Path tmp;

    private static String git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(
                List.of("git", "-C", dir.toString(), "-c", "user.name=t", "-c", "user.email=t@example.com"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
        return out;
    }

    private Path repo(String name) throws Exception {
        Path r = tmp.resolve(name);
        Files.createDirectories(r);
        git(r, "init", "-q", "-b", "main");
        return r;
    }

    /** A repository with a memory file and a ledger segment committed. */
    private Path committed(String name) throws Exception {
        Path r = repo(name);
        write(r, "users/sam/overview.md", "a\n");
        write(r, "ledger/main/0000/00000000.ndjson", "{}\n");
        git(r, "add", ".");
        git(r, "commit", "-qm", "c");
        return r;
    }

    private static void write(Path r, String path, String text) throws IOException {
        Path f = r.resolve(path);
        Files.createDirectories(f.getParent());
        Files.writeString(f, text);
    }

    private static Optional<IndexFormat> form(Path r) throws IOException {
        return IndexFormat.ofFile(r.resolve(".git/index"));
    }

    private static boolean jgitReads(Path r) throws IOException {
        try (Repository repo = new FileRepositoryBuilder()
                .setGitDir(r.resolve(".git").toFile())
                .build()) {
            DirCache.read(repo);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aSplitIndex_isFound_andJGitCannotReadIt_untilGitMakesItWholeAgain() throws Exception {
        Path r = committed("split");
        assertEquals(Optional.empty(), form(r));

        git(r, "update-index", "--split-index");
        assertEquals(Optional.of(new IndexFormat(IndexFormat.SPLIT, "git update-index --split-index")), form(r));
        assertTrue(!jgitReads(r), "JGit reads no split index: the reason for the refusal");

        write(r, "users/sam/overview.md", "b\n");
        git(r, "add", "users/sam/overview.md"); // a replaced entry: kept in the split index without a name
        assertEquals(IndexFormat.SPLIT, form(r).orElseThrow().kind());

        git(r, "update-index", "--no-split-index");
        assertEquals(Optional.empty(), form(r));
        assertTrue(jgitReads(r));
    }

    @Test
    void theConfigThatSplitsTheIndexAtGitsNextWrite_isFoundBeforeTheIndexIsSplit() throws Exception {
        Path r = committed("config");
        git(r, "config", "core.splitIndex", "true");
        try (Repository repo = new FileRepositoryBuilder()
                .setGitDir(r.resolve(".git").toFile())
                .build()) {
            assertEquals(Optional.empty(), form(r), "not split yet");
            assertEquals(Optional.of(new IndexFormat(IndexFormat.SPLIT, "core.splitIndex true")), IndexFormat.of(repo));
            git(r, "config", "core.splitIndex", "false");
            assertEquals(Optional.empty(), IndexFormat.of(repo), "JGit reads the changed config again");
        }
    }

    @Test
    void aSparseIndex_isFound() throws Exception {
        Path r = committed("sparse");
        git(r, "sparse-checkout", "init", "--cone", "--sparse-index");
        git(r, "sparse-checkout", "set", "users");
        assertEquals(Optional.of(new IndexFormat(IndexFormat.SPARSE, "index.sparse true")), form(r));
        git(r, "sparse-checkout", "disable");
        assertEquals(Optional.empty(), form(r));
    }

    /**
     * Seeded: indexes of versions 2, 3 and 4 with random paths (lengths from 1 to 300, shared
     * prefixes for version 4's compression, intent-to-add entries for version 3's extended flags)
     * and the untracked cache, split or not: found exactly when git split them, and JGit reads every
     * one that is not.
     */
    @Test
    void indexesOfEveryVersionAndPathLength_areSplitExactlyWhenGitSplitThem() throws Exception {
        Random rnd = new Random(20261127);
        for (int round = 0; round < 12; round++) {
            Path r = repo("r" + round);
            int version = 2 + round % 3;
            int files = 1 + rnd.nextInt(40);
            for (int i = 0; i < files; i++) {
                StringBuilder p =
                        new StringBuilder(rnd.nextBoolean() ? "users/sam/parts/" : "ledger/main/000" + i % 3 + "/");
                int len = 1 + rnd.nextInt(rnd.nextInt(10) == 0 ? 200 : 30);
                for (int k = 0; k < len; k++) {
                    p.append((char) ('a' + rnd.nextInt(26)));
                }
                write(r, p + ".md", "x" + i + "\n");
            }
            git(r, "add", ".");
            git(r, "commit", "-qm", "c");
            if (version == 3) {
                write(r, "users/later.md", "later\n");
                git(r, "add", "-N", "users/later.md"); // intent to add: an extended flag
            }
            git(r, "update-index", "--index-version", String.valueOf(version));
            if (rnd.nextBoolean()) {
                git(r, "config", "core.untrackedCache", "true");
                git(r, "update-index", "--untracked-cache");
                git(r, "status", "--porcelain");
            }
            boolean split = rnd.nextBoolean();
            if (split) {
                git(r, "update-index", "--split-index");
                write(r, "users/touched.md", "t\n");
                git(r, "add", "users/touched.md");
            }
            String what = "round " + round + ", version " + version + ", " + files + " files, split " + split;
            assertEquals(split, form(r).isPresent(), what);
            if (!split) {
                assertTrue(jgitReads(r), what);
            }
        }
    }

    @Test
    void bytesThatAreNoIndex_carryNoExtension() {
        assertEquals(false, IndexFormat.extension(new byte[0], "link"));
        assertEquals(
                false,
                IndexFormat.extension(
                        "DIRC\0\0\0\5\0\0\0\0linkxxxxxxxxxxxxxxxxxxxxxxxxxx".getBytes(StandardCharsets.ISO_8859_1),
                        "link"));
        byte[] truncated = "DIRC\0\0\0\2\0\0\0\7".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(false, IndexFormat.extension(java.util.Arrays.copyOf(truncated, 40), "link"));
    }
}
