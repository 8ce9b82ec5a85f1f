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
  @TempDir Path root;

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
        try (GitStore.Batch batch = g.batch()) {
          for (int c = 0; c < 3; c++) {
            Map<String, byte[]> files = new LinkedHashMap<>();
            String path = "users/u" + (c % 2) + "/notes.md";
            byte[] text = ("batch " + b + " commit " + c + "\n").repeat(b + 1).getBytes(StandardCharsets.UTF_8);
            files.put(path, text);
            last.put(path, text);
            // the same blob in every batch's pack: a roll-up must keep one copy
            files.put("users/shared.md", "unchanged\n".getBytes(StandardCharsets.UTF_8));
            batch.commit(files, who, who, "b" + b + "c" + c);
          }
          batch.publish();
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
        .redirectErrorStream(true).start();
    String out = new String(fsck.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, fsck.waitFor(), out);
    List<Path> idxs;
    try (var s = Files.list(root.resolve(".git/objects/pack"))) {
      idxs = s.filter(p -> p.toString().endsWith(".idx")).toList();
    }
    assertTrue(idxs.size() < 40, "the roll-up combined packs");
    for (Path idx : idxs) {
      // every index is one the direct roll-up reads, so the roll-ups above took that path
      assertTrue(PackCompactor.IdxFile.read(idx) != null, idx.toString());
      ObjectId prev = null;
      for (org.eclipse.jgit.internal.storage.file.PackIndex.MutableEntry e
          : org.eclipse.jgit.internal.storage.file.PackIndex.open(idx.toFile())) {
        assertTrue(prev == null || prev.compareTo(e.toObjectId()) < 0, "names strictly ascending, no duplicates: " + idx);
        prev = e.toObjectId();
      }
    }
  }
}
