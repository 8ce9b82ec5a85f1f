package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The working tree's atomic replace, and its check that tells a human's concurrent save from the daemon's base. */
class WorkTreeTest {
    @TempDir
    Path root;

    @Test
    void publish_keepsAHumansSaveMadeAfterTheWriterRead_andReplacesTheRest() throws Exception {
        WorkTree t = new WorkTree(root);
        Files.createDirectories(root.resolve("users/a"));
        Files.writeString(root.resolve("users/a/x.md"), "base x\n");
        Files.writeString(root.resolve("users/a/y.md"), "base y\n");
        WorkTree.Staged st = t.stage(Map.of(
                "users/a/x.md",
                "agent x\n".getBytes(StandardCharsets.UTF_8),
                "users/a/y.md",
                "agent y\n".getBytes(StandardCharsets.UTF_8)));
        Files.writeString(root.resolve("users/a/x.md"), "human saved x\n"); // between the read and the rename
        List<String> skipped = new ArrayList<>();
        st.publish(
                Map.of("users/a/x.md", Optional.of("base x\n"), "users/a/y.md", Optional.of("base y\n")), skipped::add);
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

    @Test
    void replacingAFile_withASparePool_reusesTwoInodes_andLeavesNothingBesideIt() throws Exception {
        Path spare = root.resolve(".memoryd/spare");
        WorkTree t = new WorkTree(root, spare);
        Path f = root.resolve("users/a/x.md");
        Set<Object> inodes = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            t.writeAll(Map.of("users/a/x.md", ("version " + i + "\n").getBytes(StandardCharsets.UTF_8)));
            assertEquals("version " + i + "\n", Files.readString(f));
            assertEquals(1, Files.getAttribute(f, "unix:nlink"), "the file has one name");
            inodes.add(Files.getAttribute(f, "unix:ino"));
        }
        assertEquals(2, inodes.size(), "the replaced inode is the next temp file: " + inodes);
        try (var s = Files.list(root.resolve("users/a"))) {
            assertEquals(List.of("x.md"), s.map(p -> p.getFileName().toString()).toList(), "no temp file beside it");
        }
        try (var s = Files.list(spare)) {
            assertEquals(1, s.count(), "one spare waits");
        }
    }

    @Test
    void aSpareThatHeldALongerVersion_isWrittenOver_andHoldsExactlyTheNewBytes() throws Exception {
        Path spare = root.resolve(".memoryd/spare");
        WorkTree t = new WorkTree(root, spare);
        Path f = root.resolve("users/a/x.md");
        String[] versions = {
            "x".repeat(20_000) + "\n", "y".repeat(9_000) + "\n", "short\n", "z".repeat(30_000) + "\n", ""
        };
        for (int round = 0; round < 2; round++) {
            for (String v : versions) {
                t.writeAll(Map.of("users/a/x.md", v.getBytes(StandardCharsets.UTF_8)));
                assertEquals(v, Files.readString(f), "round " + round + ", " + v.length() + " bytes");
                assertEquals(v.length(), Files.size(f));
            }
        }
    }

    @Test
    void aSpareThatIsAlsoANameOfAnotherFile_isNeverTruncated() throws Exception {
        Path spare = root.resolve(".memoryd/spare");
        WorkTree t = new WorkTree(root, spare);
        t.writeAll(Map.of("users/a/x.md", "one\n".getBytes(StandardCharsets.UTF_8)));
        t.writeAll(Map.of("users/a/x.md", "two\n".getBytes(StandardCharsets.UTF_8)));
        Path waiting;
        try (var s = Files.list(spare)) {
            waiting = s.findFirst().orElseThrow();
        }
        // whatever made it so, the spare now also names a file someone cares about
        Path other = root.resolve("users/a/other.md");
        Files.createLink(other, waiting);
        String held = Files.readString(other);
        t.writeAll(Map.of("users/a/x.md", "three\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("three\n", Files.readString(root.resolve("users/a/x.md")));
        assertEquals(held, Files.readString(other), "the linked spare was left alone");
    }

    @Test
    void atStart_theSparePoolIsEmptied_andAFileAKillLeftLinkedThereKeepsItsText() throws Exception {
        Path spare = root.resolve(".memoryd/spare");
        Files.createDirectories(spare);
        Files.createDirectories(root.resolve("users/a"));
        Path f = root.resolve("users/a/x.md");
        Files.writeString(f, "acknowledged text\n");
        Files.createLink(spare.resolve("7" + WorkTree.TMP_SUFFIX), f); // a kill between link and rename
        WorkTree t = new WorkTree(root, spare);
        t.removeTempFiles();
        try (var s = Files.list(spare)) {
            assertEquals(0, s.count());
        }
        assertEquals("acknowledged text\n", Files.readString(f));
        t.writeAll(Map.of("users/a/x.md", "next\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("next\n", Files.readString(f));
    }

    @Test
    void publish_withASparePool_keepsAHumansSave_andPutsTheUnusedTempFileBack() throws Exception {
        Path spare = root.resolve(".memoryd/spare");
        WorkTree t = new WorkTree(root, spare);
        Files.createDirectories(root.resolve("users/a"));
        Files.writeString(root.resolve("users/a/x.md"), "base x\n");
        WorkTree.Staged st = t.stage(Map.of("users/a/x.md", "agent x\n".getBytes(StandardCharsets.UTF_8)));
        Files.writeString(root.resolve("users/a/x.md"), "human saved x\n");
        List<String> skipped = new ArrayList<>();
        st.publish(Map.of("users/a/x.md", Optional.of("base x\n")), skipped::add);
        assertEquals("human saved x\n", Files.readString(root.resolve("users/a/x.md")));
        assertEquals(List.of("users/a/x.md"), skipped);
        try (var s = Files.list(root.resolve("users/a"))) {
            assertFalse(s.anyMatch(p -> p.getFileName().toString().endsWith(WorkTree.TMP_SUFFIX)), "no temp file left");
        }
        t.writeAll(Map.of("users/a/x.md", "agent again\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("agent again\n", Files.readString(root.resolve("users/a/x.md")));
        try (var s = Files.list(spare)) {
            assertTrue(s.count() <= 1, "the unused temp file was reused");
        }
    }

    /** What {@link WorkTree#read} gives, empty when it throws (holds is then false for every text). */
    private static Optional<Optional<String>> readOrThrown(WorkTree t, dev.memoryd.grammar.RepoPath p)
            throws Exception {
        try {
            return Optional.of(t.read(p));
        } catch (dev.memoryd.daemon.layout.NotMemoryText e) {
            return Optional.empty();
        }
    }

    @Test
    void holds_answersAsReadWould_forEachKindOfFile() throws Exception {
        WorkTree t = new WorkTree(root);
        Files.createDirectories(root.resolve("users/a/dir.md"));
        Files.writeString(root.resolve("users/a/text.md"), "caf\u00e9\n");
        Files.write(root.resolve("users/a/latin1.md"), "caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        Files.createSymbolicLink(root.resolve("users/a/link.md"), root.resolve("users/a/text.md"));
        List<Optional<String>> texts =
                List.of(Optional.empty(), Optional.of(""), Optional.of("caf\u00e9\n"), Optional.of("caf\uFFFD\n"));
        int held = 0;
        for (String name : List.of("missing.md", "dir.md", "text.md", "latin1.md", "link.md")) {
            dev.memoryd.grammar.RepoPath p = dev.memoryd.grammar.RepoPath.of("users/a/" + name);
            Optional<Optional<String>> read = readOrThrown(t, p);
            for (Optional<String> text : texts) {
                boolean expected = read.isPresent() && read.get().equals(text);
                assertEquals(expected, t.holds(p, text), name + " holding " + text);
                held += expected ? 1 : 0;
            }
        }
        assertEquals(3, held, "missing.md and dir.md hold no file, text.md its text");
    }

    /**
     * A person's save in another encoding, where memoryd's text has a replacement character: the
     * bytes differ, so the save is kept. Decoded leniently, the two read the same and the rename
     * went over the person's bytes.
     */
    @Test
    void publish_keepsASaveInAnotherEncoding_thatReadsLikeMemorydsTextOnlyWhenDecodedLeniently() throws Exception {
        WorkTree t = new WorkTree(root);
        Path f = root.resolve("users/a/x.md");
        Files.createDirectories(f.getParent());
        byte[] latin1 = "caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1);
        Files.write(f, latin1);
        WorkTree.Staged st = t.stage(Map.of("users/a/x.md", "agent\n".getBytes(StandardCharsets.UTF_8)));
        List<String> skipped = new ArrayList<>();
        st.publish(Map.of("users/a/x.md", Optional.of("caf\uFFFD\n")), skipped::add);
        assertEquals(List.of("users/a/x.md"), skipped);
        org.junit.jupiter.api.Assertions.assertArrayEquals(latin1, Files.readAllBytes(f));
    }
}
