package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.memoryd.grammar.human.SectionMerge;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SectionMergeTest {
    private static String file(String updated, String identity, String focus, String log) {
        return "---\nslice:\n  meta:\n    last_updated: " + updated + "\n---\n# Sam\n\n"
                + "## Identity\n<!-- @anchor: identity v1 -->\n\n" + identity + "\n\n"
                + "## Current Focus\n<!-- @anchor: current-focus v1 -->\n\n" + focus + "\n\n"
                + "## Change Log\n<!-- @anchor: change-log v1 -->\n\n" + log + "\n";
    }

    private static final String BASE = file("2026-11-01T00:00:00Z", "I.", "F.", "- 2026-11-01: created");

    @Test
    void sectionsChangedOnOneSideEach_mergeCleanly_withTheLaterLastUpdated_andBothLogLines() {
        String ours =
                file("2026-11-03T00:00:00Z", "I2.", "F.", "- 2026-11-01: created\n- 2026-11-03: replaced Identity");
        String theirs = file(
                "2026-11-02T00:00:00Z", "I.", "F2.", "- 2026-11-01: created\n- 2026-11-02: replaced Current Focus");
        SectionMerge.Result r = SectionMerge.merge(BASE, ours, theirs, Map.of());
        assertEquals(
                new SectionMerge.Merged(
                        file(
                                "2026-11-03T00:00:00Z",
                                "I2.",
                                "F2.",
                                "- 2026-11-01: created\n- 2026-11-02: replaced Current Focus\n- 2026-11-03: replaced Identity")),
                r);
    }

    @Test
    void aSectionChangedOnBothSides_isAConflict_withBaseOursTheirs_untilResolved() {
        String ours = file("2026-11-03T00:00:00Z", "Ours.", "F.", "- 2026-11-01: created\n- 2026-11-03: x");
        String theirs = file("2026-11-02T00:00:00Z", "Theirs.", "F.", "- 2026-11-01: created\n- 2026-11-02: y");
        SectionMerge.Conflicts c =
                assertInstanceOf(SectionMerge.Conflicts.class, SectionMerge.merge(BASE, ours, theirs, Map.of()));
        assertEquals(1, c.conflicts().size());
        SectionMerge.Conflict k = c.conflicts().get(0);
        assertEquals("identity", k.section());
        assertEquals("## Identity\n<!-- @anchor: identity v1 -->\n\nI.\n\n", k.base());
        assertEquals("## Identity\n<!-- @anchor: identity v1 -->\n\nOurs.\n\n", k.ours());
        assertEquals("## Identity\n<!-- @anchor: identity v1 -->\n\nTheirs.\n\n", k.theirs());
        SectionMerge.Merged m = assertInstanceOf(
                SectionMerge.Merged.class, SectionMerge.merge(BASE, ours, theirs, Map.of("identity", k.theirs())));
        assertEquals(
                file(
                        "2026-11-03T00:00:00Z",
                        "Theirs.",
                        "F.",
                        "- 2026-11-01: created\n- 2026-11-02: y\n- 2026-11-03: x"),
                m.text());
    }

    @Test
    void aFileOnlyOneSideChanged_isThatSide_andTheSameChangeTwice_isTakenOnce() {
        String ours = file("2026-11-03T00:00:00Z", "I2.", "F.", "- 2026-11-01: created");
        assertEquals(new SectionMerge.Merged(ours), SectionMerge.merge(BASE, ours, BASE, Map.of()));
        assertEquals(new SectionMerge.Merged(ours), SectionMerge.merge(BASE, BASE, ours, Map.of()));
        assertEquals(new SectionMerge.Merged(ours), SectionMerge.merge(BASE, ours, ours, Map.of()));
    }

    @Test
    void aFileDeletedOnOneSideAndChangedOnTheOther_isAWholeFileConflict() {
        String ours = file("2026-11-03T00:00:00Z", "I2.", "F.", "- 2026-11-01: created");
        SectionMerge.Conflicts c =
                assertInstanceOf(SectionMerge.Conflicts.class, SectionMerge.merge(BASE, ours, null, Map.of()));
        assertEquals(SectionMerge.WHOLE_FILE, c.conflicts().get(0).section());
    }

    @Test
    void aSectionAddedOnOneSide_isKeptInPlace_andOneRemovedOnOneSideUnchangedOnTheOther_isRemoved() {
        String extra = "## Extra\n<!-- @anchor: extra v1 -->\n\nX.\n\n";
        String theirs = BASE.replace("## Current Focus", extra + "## Current Focus");
        SectionMerge.Merged m = assertInstanceOf(
                SectionMerge.Merged.class, SectionMerge.merge(BASE, BASE.replace("I.", "I2."), theirs, Map.of()));
        assertEquals(theirs.replace("I.", "I2."), m.text());
        String withExtra = theirs;
        String removedOnOurs = BASE;
        assertEquals(
                new SectionMerge.Merged(BASE.replace("F.", "F2.")),
                SectionMerge.merge(withExtra, removedOnOurs, withExtra.replace("F.", "F2."), Map.of()));
    }

    @Test
    void aSectionRemovedOnOneSideAndChangedOnTheOther_isAConflict() {
        String extra = "## Extra\n<!-- @anchor: extra v1 -->\n\nX.\n\n";
        String base = BASE.replace("## Current Focus", extra + "## Current Focus");
        SectionMerge.Conflicts c = assertInstanceOf(
                SectionMerge.Conflicts.class, SectionMerge.merge(base, BASE, base.replace("X.", "Y."), Map.of()));
        assertEquals("extra", c.conflicts().get(0).section());
        assertEquals(null, c.conflicts().get(0).ours());
    }
}
