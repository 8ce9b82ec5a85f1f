package dev.memoryd.daemon.git;

import static dev.memoryd.daemon.git.GitCli.WHO;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The head's blobs told from the tree image memoryd keeps are the blobs the head's commit holds:
 * after batches that moved the branch, that were given up, and while one is open.
 */
class HeadBlobIdsTest {
    private static final List<String> PATHS =
            List.of("a.md", "d/b.md", "d/e/c.md", "ledger/main/0000/00000001.ndjson", "missing.md", "d");

    @TempDir
    Path root;

    @BeforeEach
    void init() throws IOException {
        GitStore.init(root, "main");
    }

    private static Map<String, byte[]> change(Random r, int round) {
        Map<String, byte[]> files = new HashMap<>();
        for (String p : PATHS.subList(0, 4)) {
            if (r.nextInt(3) == 0) {
                files.put(p, r.nextInt(8) == 0 ? null : ("r" + round + " " + p).getBytes(StandardCharsets.UTF_8));
            }
        }
        if (files.isEmpty()) {
            files.put("a.md", ("r" + round).getBytes(StandardCharsets.UTF_8));
        }
        return files;
    }

    @Test
    void theHeadsBlobs_fromTheImage_areTheHeadCommits_beforeDuringAndAfterBatches() throws IOException {
        Random r = new Random(20261128);
        try (GitStore g = GitStore.open(root, "main")) {
            assertEquals(Map.of(), g.headBlobIds(PATHS), "no head yet");
            for (int round = 0; round < 40; round++) {
                boolean publish = r.nextInt(4) != 0;
                try (CommitBatch b = g.batch()) {
                    b.commit(change(r, round), WHO, WHO, "r" + round);
                    b.commit(change(r, round), WHO, WHO, "r" + round + "'");
                    assertEquals(
                            g.blobIds(g.head(), PATHS),
                            g.headBlobIds(PATHS),
                            "round " + round + ": a batch's commits are not the head's until its ref moves");
                    if (publish) {
                        b.publish();
                    }
                }
                Map<String, ObjectId> atHead = g.blobIds(g.head(), PATHS);
                assertEquals(atHead, g.headBlobIds(PATHS), "round " + round + (publish ? ", published" : ", given up"));
            }
        }
    }
}
