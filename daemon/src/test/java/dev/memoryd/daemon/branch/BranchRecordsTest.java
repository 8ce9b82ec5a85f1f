package dev.memoryd.daemon.branch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The branch service's records refuse what no merge or branch can be, in their constructors. */
class BranchRecordsTest {

    @Test
    void aResolution_takesOursTheirsOrContent_andContentOnlyWithContent() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new Resolution("users/sam/overview.md", "identity", "mine", null));
        assertThrows(
                IllegalArgumentException.class,
                () -> new Resolution("users/sam/overview.md", "identity", "ours", "text"));
        assertThrows(IllegalArgumentException.class, () -> new Resolution("../outside.md", "identity", "ours", null));
        assertEquals(
                null, new Resolution("users/sam/overview.md", "identity", "content", null).content(), "null removes");
    }

    @Test
    void givenResolutions_areACopy() {
        List<Resolution> rs =
                new ArrayList<>(List.of(new Resolution("users/sam/overview.md", "identity", "ours", null)));
        Resolutions.Given g = new Resolutions.Given(rs);
        rs.clear();
        assertEquals(1, g.list().size());
    }

    @Test
    void aConflictedMerge_namesAtLeastOneConflict() {
        assertThrows(IllegalArgumentException.class, () -> new Merged.Conflicted(List.of(), "m"));
        assertEquals(
                1,
                new Merged.Conflicted(
                                List.of(new MergeConflict("users/sam/overview.md", "identity", null, "o", "t")), "m")
                        .conflicts()
                        .size());
    }
}
