package dev.memoryd.daemon.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one rule for which files of a root are memory files and chunk files. */
class RootLayoutTest {
    @TempDir
    Path root;

    @Test
    void memoryFiles_areMarkdownUnderUsers_withNoHiddenName() {
        assertTrue(RootLayout.isMemoryFile("users/sam/overview.md"));
        assertTrue(RootLayout.isMemoryFile("users/sam/parts/inner-critic/profile.md"));
        assertFalse(RootLayout.isMemoryFile("users/sam/.overview.md"), "an editor's hidden copy");
        assertFalse(RootLayout.isMemoryFile("users/sam/.trash/overview.md"), "a hidden folder");
        assertFalse(RootLayout.isMemoryFile("users/sam/overview.md.swp"));
        assertFalse(RootLayout.isMemoryFile("notes/overview.md"));
        assertFalse(RootLayout.isMemoryFile("usersx/overview.md"));
        assertFalse(RootLayout.isMemoryFile(".slices/a.slice"));
    }

    @Test
    void chunkFiles_areSliceFilesUnderDotSlices_withNoHiddenNameBelowIt() {
        assertTrue(RootLayout.isChunkFile(".slices/ab.slice"));
        assertTrue(RootLayout.isChunkFile(".slices/x/ab.slice"));
        assertFalse(RootLayout.isChunkFile(".slices/.ab.slice"));
        assertFalse(RootLayout.isChunkFile("users/sam/ab.slice"), "slice files live under .slices/ only");
        assertFalse(RootLayout.isChunkFile(".slices/ab.md"));
        assertTrue(RootLayout.isContentFile(".slices/ab.slice"));
        assertTrue(RootLayout.isContentFile("users/sam/overview.md"));
        assertFalse(RootLayout.isContentFile("README.md"));
    }

    @Test
    void diskWalk_findsContentInPathOrder_andSkipsHiddenNamesAndSymlinks() throws Exception {
        Files.createDirectories(root.resolve("users/sam/parts/a"));
        Files.createDirectories(root.resolve("users/sam/.backup"));
        Files.createDirectories(root.resolve(".slices"));
        Files.writeString(root.resolve("users/sam/overview.md"), "x");
        Files.writeString(root.resolve("users/sam/parts/a/profile.md"), "x");
        Files.writeString(root.resolve("users/sam/.backup/overview.md"), "x");
        Files.writeString(root.resolve("users/sam/notes.txt"), "x");
        Files.writeString(root.resolve(".slices/c1.slice"), "x");
        Files.createSymbolicLink(root.resolve("users/sam/link.md"), root.resolve("users/sam/overview.md"));
        assertEquals(
                List.of("users/sam/overview.md", "users/sam/parts/a/profile.md"), RootLayout.memoryFilesOnDisk(root));
        assertEquals(
                List.of(".slices/c1.slice", "users/sam/overview.md", "users/sam/parts/a/profile.md"),
                RootLayout.contentFilesOnDisk(root));
    }

    @Test
    void aRootWithoutContentDirectories_hasNoContent() throws Exception {
        assertEquals(List.of(), RootLayout.contentFilesOnDisk(root));
    }
}
