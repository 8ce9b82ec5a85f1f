package dev.memoryd.daemon.write;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The three-way merge of a human's edit with the commits that moved the branch without it. */
class BehindBranchMergeTest {
    private static Optional<String> merge(String base, String ours, String theirs) {
        return BehindBranch.merge(
                base.getBytes(StandardCharsets.UTF_8),
                ours.getBytes(StandardCharsets.UTF_8),
                theirs.getBytes(StandardCharsets.UTF_8));
    }

    private static final String BASE = "# Notes\n\n## Inbox\n\n- one\n\n## Drafts\n\nA draft.\n";

    @Test
    void editsInDifferentSections_mergeIntoOneText_withBoth() {
        String ours = BASE.replace("- one\n", "- one\n- the human's\n");
        String theirs = BASE + "\nPushed.\n";
        assertEquals(
                Optional.of("# Notes\n\n## Inbox\n\n- one\n- the human's\n\n## Drafts\n\nA draft.\n\nPushed.\n"),
                merge(BASE, ours, theirs));
    }

    @Test
    void editsOfTheSameLines_doNotMerge() {
        assertEquals(Optional.empty(), merge(BASE, BASE + "Ours.\n", BASE + "Theirs.\n"));
        assertEquals(
                Optional.empty(),
                merge(BASE, BASE.replace("A draft.", "Our draft."), BASE.replace("A draft.", "Theirs.")));
    }

    @Test
    void theSameEditOnBothSides_isTakenOnce() {
        String both = BASE + "Same.\n";
        assertEquals(Optional.of(both), merge(BASE, both, both));
    }

    @Test
    void aTextWithoutItsLastLineEnd_isNotMerged() {
        assertEquals(Optional.empty(), merge(BASE, BASE + "no end", BASE + "\nPushed.\n"));
        assertEquals(Optional.empty(), merge(BASE.strip(), BASE.strip() + "\n", BASE));
    }

    @Test
    void multiByteTexts_keepEveryCharacter() {
        String base = "# Nötes\n\n- ä\n\n- 終\n";
        assertEquals(
                Optional.of("# Nötes\n\n- ä\n- ü\n\n- 終\n- 字\n"),
                merge(base, base.replace("- ä\n", "- ä\n- ü\n"), base + "- 字\n"));
    }
}
