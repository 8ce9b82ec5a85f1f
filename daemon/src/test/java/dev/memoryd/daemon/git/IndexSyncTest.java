package dev.memoryd.daemon.git;

import static dev.memoryd.daemon.git.GitCli.git;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index brought in step with memoryd's commits outside a batch: a file a human changed since
 * is recorded at memoryd's blob (so {@code git status} shows the change as not staged), unless the
 * human staged it as it is now ({@code git add}): that entry stays theirs, for their commit.
 */
class IndexSyncTest {
    @TempDir
    Path tmp;

    @Test
    void aFileTheHumanStaged_keepsItsEntry_andOneOnlyChangedFollowsTheBranch() throws Exception {
        Repository repo;
        try (Git g =
                Git.init().setDirectory(tmp.toFile()).setInitialBranch("main").call()) {
            repo = g.getRepository();
        }
        Map<String, ObjectId> recorded = new LinkedHashMap<>();
        for (String p : new String[] {"staged.md", "changed.md", "clean.md"}) {
            Files.writeString(tmp.resolve(p), "memoryd's " + p + "\n");
            recorded.put(p, blob("memoryd's " + p + "\n"));
        }
        git(tmp, "add", "-A");
        git(tmp, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "memoryd's commit");
        Files.writeString(tmp.resolve("staged.md"), "the human's words, staged\n");
        git(tmp, "add", "staged.md");
        Files.writeString(tmp.resolve("changed.md"), "the human's words, not staged\n");

        assertTrue(IndexSync.update(repo, tmp, recorded, Set.of(), p -> FileMode.REGULAR_FILE));

        assertEquals("staged.md", git(tmp, "diff", "--cached", "--name-only"), "still staged");
        assertEquals("changed.md", git(tmp, "diff", "--name-only"), "changed, not staged");
        repo.close();
    }

    private static ObjectId blob(String text) {
        try (ObjectInserter.Formatter f = new ObjectInserter.Formatter()) {
            return f.idFor(Constants.OBJ_BLOB, text.getBytes(StandardCharsets.UTF_8));
        }
    }
}
