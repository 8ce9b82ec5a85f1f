package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The working tree's atomic replace, and its check that tells a human's concurrent save from the daemon's base. */
class WorkTreeTest {
  @TempDir Path root;

  @Test
  void publish_keepsAHumansSaveMadeAfterTheWriterRead_andReplacesTheRest() throws Exception {
    WorkTree t = new WorkTree(root);
    Files.createDirectories(root.resolve("users/a"));
    Files.writeString(root.resolve("users/a/x.md"), "base x\n");
    Files.writeString(root.resolve("users/a/y.md"), "base y\n");
    WorkTree.Staged st = t.stage(Map.of("users/a/x.md", "agent x\n".getBytes(StandardCharsets.UTF_8),
        "users/a/y.md", "agent y\n".getBytes(StandardCharsets.UTF_8)));
    Files.writeString(root.resolve("users/a/x.md"), "human saved x\n"); // between the read and the rename
    List<String> skipped = new ArrayList<>();
    st.publish(Map.of("users/a/x.md", Optional.of("base x\n"), "users/a/y.md", Optional.of("base y\n")), skipped::add);
    assertEquals("human saved x\n", Files.readString(root.resolve("users/a/x.md")));
    assertEquals("agent y\n", Files.readString(root.resolve("users/a/y.md")));
    assertEquals(List.of("users/a/x.md"), skipped);
    try (var s = Files.list(root.resolve("users/a"))) {
      assertFalse(s.anyMatch(p -> p.getFileName().toString().endsWith(WorkTree.TMP_SUFFIX)), "no temp file left");
    }
  }

  @Test
  void publish_aFileCreatedByAHumanMeanwhile_isKept() throws Exception {
    WorkTree t = new WorkTree(root);
    WorkTree.Staged st = t.stage(Map.of("users/a/new.md", "agent\n".getBytes(StandardCharsets.UTF_8)));
    Files.writeString(root.resolve("users/a/new.md"), "human\n");
    List<String> skipped = new ArrayList<>();
    st.publish(Map.of("users/a/new.md", Optional.empty()), skipped::add);
    assertEquals("human\n", Files.readString(root.resolve("users/a/new.md")));
    assertEquals(List.of("users/a/new.md"), skipped);
  }
}
