package dev.memoryd.daemon.git;

import static dev.memoryd.daemon.git.GitCli.WHO;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch's small objects stored, not deflated, and its trees written as deltas against the same
 * directory's last version in the batch: every stream inflates to its bytes, and git reads every
 * object of every commit.
 */
class SmallObjectsTest {
    @TempDir
    Path root;

    @Test
    void aStoredStream_inflatesToItsBytes_atEveryBlockBoundary() throws Exception {
        Random r = new Random(20261128);
        for (int len : new int[] {0, 1, 2, 1024, 65_534, 65_535, 65_536, 131_070, 131_071, 200_001}) {
            byte[] data = new byte[len + 7];
            r.nextBytes(data);
            byte[] out = new byte[ZlibStored.size(len)];
            int n = ZlibStored.write(data, 3, len, out);
            assertEquals(out.length, n, "length " + len);
            Inflater inf = new Inflater();
            inf.setInput(out, 0, n);
            byte[] back = new byte[len + 1];
            int got = inf.inflate(back);
            assertTrue(inf.finished(), "the stream ends, length " + len);
            assertEquals(0, inf.getRemaining(), "nothing after the check, length " + len);
            assertEquals(len, got);
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 3, 3 + len), java.util.Arrays.copyOf(back, len));
            inf.end();
        }
    }

    @Test
    void aStoredStreamWithAWrongCheck_isRefusedByTheInflater() {
        byte[] data = "100644 a\0".getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[ZlibStored.size(data.length)];
        int n = ZlibStored.write(data, 0, data.length, out);
        out[n - 1] ^= 1;
        Inflater inf = new Inflater();
        inf.setInput(out, 0, n);
        assertThrows(java.util.zip.DataFormatException.class, () -> inf.inflate(new byte[64]));
    }

    @Test
    void aTooSmallBuffer_isRefusedBeforeAnythingIsWritten() {
        byte[] out = new byte[10];
        assertThrows(IllegalArgumentException.class, () -> ZlibStored.write(new byte[5], 0, 5, out));
        assertArrayEquals(new byte[10], out);
    }

    @Test
    void aBatchOfCommitsToALargeDirectory_writesItsTreesAsDeltas_andGitReadsEveryCommit() throws Exception {
        GitStore.init(root, "main");
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (int i = 0; i < 300; i++) {
            files.put(
                    String.format("ledger/main/0000/%08d.ndjson", i),
                    ("line " + i + "\n").getBytes(StandardCharsets.UTF_8));
        }
        files.put("users/sam/notes.md", "# Notes\n".getBytes(StandardCharsets.UTF_8));
        List<String> commits = new ArrayList<>();
        List<Map<String, byte[]>> trees = new ArrayList<>();
        try (GitStore g = GitStore.open(root, "main")) {
            for (int b = 0; b < 3; b++) {
                try (CommitBatch batch = g.batch()) {
                    for (int c = 0; c < 2 * BatchPackInserter.MAX_DEPTH + 5; c++) { // past the longest chain
                        Map<String, byte[]> change = new LinkedHashMap<>();
                        if (b == 0 && c == 0) {
                            change.putAll(files);
                        }
                        String seg = String.format("ledger/main/0000/%08d.ndjson", 300 + b * 200 + c);
                        change.put(seg, ("event " + b + "." + c + "\n").getBytes(StandardCharsets.UTF_8));
                        change.put(
                                "users/sam/notes.md",
                                ("# Notes\n\n- " + b + "." + c + "\n").getBytes(StandardCharsets.UTF_8));
                        files.putAll(change);
                        commits.add(batch.commit(change, WHO, WHO, "commit " + b + "." + c)
                                .name());
                        trees.add(new LinkedHashMap<>(files));
                    }
                    batch.publish();
                }
            }
        }
        assertEquals("", git("fsck", "--full", "--strict", "--no-dangling"));
        String verify = verifyPacks();
        long treeDeltas = rows(verify, "tree").stream()
                .filter(t -> t.length > 5) // depth and base: a delta
                .count();
        assertTrue(treeDeltas >= 3 * 100, "trees stored as deltas: " + treeDeltas + "\n" + verify);
        // Commits stay compressed (git's gc would copy a stored one as it is); small whole trees do not.
        List<String[]> commitRows = rows(verify, "commit");
        assertEquals(commits.size(), commitRows.size());
        for (String[] c : commitRows) {
            assertTrue(Long.parseLong(c[3]) < Long.parseLong(c[2]), "a commit deflated: " + String.join(" ", c));
        }
        long storedTrees = rows(verify, "tree").stream()
                .filter(t -> t.length == 5 && Long.parseLong(t[3]) > Long.parseLong(t[2]))
                .count();
        assertTrue(storedTrees >= 3, "small whole trees stored: " + storedTrees);
        for (int i = 0; i < commits.size(); i += 17) {
            String listed = git("ls-tree", "-r", commits.get(i));
            assertEquals(trees.get(i).size(), listed.lines().count(), "commit " + i);
            String notes = git("cat-file", "blob", commits.get(i) + ":users/sam/notes.md");
            assertEquals(new String(trees.get(i).get("users/sam/notes.md"), StandardCharsets.UTF_8).trim(), notes);
        }
    }

    /** verify-pack's rows for objects of {@code type}: id, type, size, size in pack, offset[, depth, base]. */
    private static List<String[]> rows(String verify, String type) {
        return verify.lines()
                .map(l -> l.trim().split("\\s+"))
                .filter(f -> f.length >= 5 && f[0].matches("[0-9a-f]{40}") && f[1].equals(type))
                .toList();
    }

    private String verifyPacks() throws Exception {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> s = Files.list(root.resolve(".git/objects/pack"))) {
            for (Path idx : s.filter(p -> p.toString().endsWith(".idx")).toList()) {
                all.append(git("verify-pack", "-v", idx.toString())).append('\n');
            }
        }
        return all.toString();
    }

    private String git(String... args) throws Exception {
        return GitCli.git(root, args);
    }
}
