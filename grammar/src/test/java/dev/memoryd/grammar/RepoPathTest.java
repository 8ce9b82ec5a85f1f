package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RepoPathTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "../x",
                "/etc/passwd",
                "a/../../b",
                ".git/config",
                "a\u0000b",
                "a//b",
                "a\\b",
                "..\\x",
                "",
                "./a",
                "a/.",
                "a/",
                ".memoryd/sock",
                "a\nb",
                "a\u007fb"
            })
    void hostilePath_isRejected(String s) {
        assertThrows(IllegalArgumentException.class, () -> RepoPath.of(s));
    }

    @Test
    void tooLongPath_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> RepoPath.of("a/".repeat(2048) + "a"));
        assertEquals(4096, RepoPath.of("a/".repeat(2047) + "aa").value().length());
    }

    @Test
    void segmentLongerThanAFileNameCanBe_isRejected() {
        assertEquals(255, RepoPath.of("d/" + "a".repeat(255)).value().length() - 2);
        String msg = assertThrows(IllegalArgumentException.class, () -> RepoPath.of("d/" + "a".repeat(256)))
                .getMessage();
        assertTrue(msg.contains("segment 1") && msg.contains("255 bytes"), msg);
        // Bytes, not chars: 128 two-byte characters are 256 bytes.
        assertThrows(IllegalArgumentException.class, () -> RepoPath.of("\u00e9".repeat(128)));
    }

    @Test
    void loneSurrogate_isRejected_aPairIsNot() {
        String msg = assertThrows(IllegalArgumentException.class, () -> RepoPath.of("users/x\ud800.md"))
                .getMessage();
        assertTrue(msg.contains("lone surrogate U+D800"), msg);
        assertThrows(IllegalArgumentException.class, () -> RepoPath.of("users/\udc00\ud83d.md"));
        assertEquals(
                "users/\ud83d\ude00.md", RepoPath.of("users/\ud83d\ude00.md").value());
    }

    @Test
    void rejection_namesTheProblem() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RepoPath.of("a/../b"))
                .getMessage()
                .contains("'..'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RepoPath.of("a\u0000b"))
                .getMessage()
                .contains("U+0000"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RepoPath.of(".git/x"))
                .getMessage()
                .contains(".git"));
    }

    @Test
    void ordinaryPaths_areAccepted() {
        assertEquals(
                "users/sam/overview.md", RepoPath.of("users/sam/overview.md").value());
        assertEquals(".gitignore", RepoPath.of(".gitignore").value());
        assertEquals("a/.git", RepoPath.of("a/.git").value());
    }
}
