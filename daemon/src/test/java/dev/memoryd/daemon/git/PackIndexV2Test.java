package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.eclipse.jgit.internal.storage.file.BasePackIndexWriter;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.transport.PackedObjectInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** memoryd's own pack index writer against JGit's, and packs written and rolled up through it. */
class PackIndexV2Test {
    @TempDir
    Path root;

    @Test
    void write_isByteForByteJGitsVersion2Index_including64BitOffsets() throws Exception {
        Random r = new Random(7);
        for (int n : new int[] {0, 1, 3, 300}) {
            List<PackedObjectInfo> objs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] raw = new byte[20];
                r.nextBytes(raw);
                PackedObjectInfo o = new PackedObjectInfo(ObjectId.fromRaw(raw));
                // a few offsets past 2 GiB go to the 64-bit table
                o.setOffset(i % 97 == 5 ? 0x80000000L + r.nextInt(1 << 20) : 12 + r.nextInt(1 << 30));
                o.setCRC(r.nextInt());
                objs.add(o);
            }
            Collections.sort(objs);
            byte[] packHash = new byte[20];
            r.nextBytes(packHash);
            ByteArrayOutputStream jgit = new ByteArrayOutputStream();
            BasePackIndexWriter.createVersion(jgit, 2).write(objs, packHash);
            assertArrayEquals(jgit.toByteArray(), PackIndexV2.write(objs, packHash), n + " objects");
        }
    }

    @Test
    void batchPacksAndTheirRollUp_areValidForGitAndJGit() throws Exception {
        GitStore.init(root, "main");
        Map<String, byte[]> last = new LinkedHashMap<>();
        try (GitStore g = GitStore.open(root, "main")) {
            PersonIdent who = new PersonIdent("t", "t@example.com", Instant.EPOCH, java.time.ZoneOffset.UTC);
            for (int b = 0; b < 40; b++) {
                try (CommitBatch batch = g.batch()) {
                    for (int c = 0; c < 3; c++) {
                        Map<String, byte[]> files = new LinkedHashMap<>();
                        String path = "users/u" + (c % 2) + "/notes.md";
                        byte[] text = ("batch " + b + " commit " + c + "\n")
                                .repeat(b + 1)
                                .getBytes(StandardCharsets.UTF_8);
                        files.put(path, text);
                        last.put(path, text);
                        // the same blob in every batch's pack: a roll-up must keep one copy
                        files.put("users/shared.md", "unchanged\n".getBytes(StandardCharsets.UTF_8));
                        batch.commit(files, who, who, "b" + b + "c" + c);
                    }
                    batch.publish().orThrow();
                }
                if (b % 8 == 7) {
                    g.compactPacks();
                }
            }
            for (Map.Entry<String, byte[]> e : last.entrySet()) {
                assertArrayEquals(e.getValue(), g.read(g.head(), e.getKey()).orElseThrow());
            }
            assertEquals(120, g.commitsBetween(null, g.head(), 1000).size());
        }
        Process fsck = new ProcessBuilder("git", "-C", root.toString(), "fsck", "--strict", "--no-dangling")
                .redirectErrorStream(true)
                .start();
        String out = new String(fsck.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, fsck.waitFor(), out);
        List<Path> idxs;
        try (var s = Files.list(root.resolve(".git/objects/pack"))) {
            idxs = s.filter(p -> p.toString().endsWith(".idx")).toList();
        }
        assertTrue(idxs.size() < 40, "the roll-up combined packs");
        for (Path idx : idxs) {
            // every index is one the direct roll-up reads, so the roll-ups above took that path
            assertTrue(IndexFileMerge.IdxFile.read(idx) != null, idx.toString());
            ObjectId prev = null;
            for (org.eclipse.jgit.internal.storage.file.PackIndex.MutableEntry e :
                    org.eclipse.jgit.internal.storage.file.PackIndex.open(idx.toFile())) {
                assertTrue(
                        prev == null || prev.compareTo(e.toObjectId()) < 0,
                        "names strictly ascending, no duplicates: " + idx);
                prev = e.toObjectId();
            }
        }
    }

    /** A ledger segment grows by a line per commit: later versions in a batch are deltas. */
    @Test
    void growingFiles_areStoredAsDeltas_readBackAtEveryCommit_andSurviveRollUps() throws Exception {
        GitStore.init(root, "main");
        String seg = "ledger/main/0000/00000000.ndjson";
        List<ObjectId> commits = new ArrayList<>();
        List<byte[]> texts = new ArrayList<>();
        StringBuilder lines = new StringBuilder();
        long packBytes = 0;
        long wholeBytes = 0;
        try (GitStore g = GitStore.open(root, "main")) {
            PersonIdent who = new PersonIdent("t", "t@example.com", Instant.EPOCH, java.time.ZoneOffset.UTC);
            Random r = new Random(5);
            for (int b = 0; b < 24; b++) {
                try (CommitBatch batch = g.batch()) {
                    for (int c = 0; c < 6; c++) {
                        byte[] noise = new byte[40];
                        r.nextBytes(noise);
                        lines.append("{\"seq\":")
                                .append(b * 6 + c)
                                .append(",\"x\":\"")
                                .append(java.util.HexFormat.of().formatHex(noise))
                                .append("\"}\n");
                        byte[] text = lines.toString().getBytes(StandardCharsets.UTF_8);
                        wholeBytes += text.length;
                        Map<String, byte[]> files = new LinkedHashMap<>();
                        files.put(seg, text);
                        files.put("users/u/notes.md", ("note " + c + "\n").getBytes(StandardCharsets.UTF_8));
                        commits.add(batch.commit(files, who, who, "b" + b + "c" + c));
                        texts.add(text);
                    }
                    batch.publish().orThrow();
                }
                packBytes += packSizes();
                if (b % 8 == 7) {
                    g.compactPacks();
                }
            }
            for (int i = 0; i < commits.size(); i++) {
                assertArrayEquals(texts.get(i), g.read(commits.get(i), seg).orElseThrow(), "commit " + i);
            }
        }
        assertTrue(packBytes > 0);
        String verify = git("verify-pack", "-v", onePack());
        assertTrue(verify.contains("chain length = "), "the rolled-up pack still holds delta chains:\n" + verify);
        git("fsck", "--strict", "--no-dangling");
        // every version of the segment is readable by git too
        assertEquals(
                new String(texts.get(texts.size() - 1), StandardCharsets.UTF_8),
                git("show", commits.get(commits.size() - 1).name() + ":" + seg));
        assertEquals(
                new String(texts.get(3), StandardCharsets.UTF_8),
                git("show", commits.get(3).name() + ":" + seg));
        assertTrue(wholeBytes > 0);
    }

    /**
     * A delta whose base is dropped from its pack as a duplicate (a smaller pack holds the same
     * blob): the direct roll-up cannot move it and leaves it to JGit's; every version stays readable.
     */
    @Test
    void deltaWhoseBaseIsAlsoInASmallerPack_rollsUpReadable() throws Exception {
        GitStore.init(root, "main");
        byte[] x = "line one\nline two\n".repeat(50).getBytes(StandardCharsets.UTF_8);
        byte[] y = ("line one\nline two\n".repeat(50) + "line three\n").getBytes(StandardCharsets.UTF_8);
        try (GitStore g = GitStore.open(root, "main")) {
            PersonIdent who = new PersonIdent("t", "t@example.com", Instant.EPOCH, java.time.ZoneOffset.UTC);
            for (int b = 0; b < PackCompactor.MIN_PACKS; b++) { // small packs: a blob, a tree, a commit
                try (CommitBatch batch = g.batch()) {
                    batch.commit(Map.of("g.md", ("g" + b).getBytes(StandardCharsets.UTF_8)), who, who, "g" + b);
                    batch.publish().orThrow();
                }
            }
            try (CommitBatch batch = g.batch()) { // x whole, in a pack smaller than the next
                batch.commit(Map.of("f.md", x, "h.md", "h".getBytes(StandardCharsets.UTF_8)), who, who, "x");
                batch.publish().orThrow();
            }
            try (CommitBatch batch = g.batch()) { // x again, whole, then y as a delta against it
                batch.commit(Map.of("f.md", "other".getBytes(StandardCharsets.UTF_8)), who, who, "other");
                batch.commit(Map.of("f.md", x), who, who, "x again");
                batch.commit(Map.of("f.md", y), who, who, "y");
                batch.publish().orThrow();
            }
            assertTrue(PackCompactor.maybeCompact(g.repository(), new ReplacedPacks()) > 0, "the packs were combined");
            assertArrayEquals(y, g.read(g.head(), "f.md").orElseThrow());
            assertArrayEquals(
                    x, g.read(g.repository().resolve("HEAD~1"), "f.md").orElseThrow());
        }
        git("fsck", "--strict", "--no-dangling");
        assertEquals(new String(y, StandardCharsets.UTF_8), git("show", "HEAD:f.md"));
        assertEquals(new String(x, StandardCharsets.UTF_8), git("show", "HEAD~1:f.md"));
    }

    private long packSizes() throws java.io.IOException {
        try (var s = Files.list(root.resolve(".git/objects/pack"))) {
            return s.filter(p -> p.toString().endsWith(".pack"))
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    private String onePack() throws java.io.IOException {
        try (var s = Files.list(root.resolve(".git/objects/pack"))) {
            return s.filter(p -> p.toString().endsWith(".idx"))
                    .max(java.util.Comparator.comparingLong(p -> p.toFile().length()))
                    .orElseThrow()
                    .toString();
        }
    }

    private String git(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", root.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + "\n" + out);
        return out;
    }
}
