package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A batch's pack, its index and their directory are forced to disk before the branch names the batch's commits. */
class PackForcedTest {
    @TempDir
    Path root;

    private static final PersonIdent WHO =
            new PersonIdent("t", "t@example.com", Instant.EPOCH, java.time.ZoneOffset.UTC);

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
                ObjectId tip;
                try (CommitBatch batch = g.batch()) {
                    tip = batch.commit(
                            Map.of("notes.md", ("batch " + b + "\n").getBytes(StandardCharsets.UTF_8)),
                            WHO,
                            WHO,
                            "b" + b);
                    batch.publish().orThrow();
                }
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
}
