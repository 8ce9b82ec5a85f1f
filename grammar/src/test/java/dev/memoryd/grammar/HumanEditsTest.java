package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.grammar.human.HumanEdits;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HumanEditsTest {
    private static final RepoPath CRITIC = RepoPath.of("users/sam/parts/inner-critic/profile.md");

    private static String critic() {
        return TestSupport.exampleTree().get(CRITIC);
    }

    private static HumanEdits.Diff diff(String before, String after) {
        return HumanEdits.diff(TestSupport.grammar(), CRITIC, before, after, TestSupport.HASHER);
    }

    @Test
    void regions_concatenate_toTheWholeText() {
        String t = critic();
        StringBuilder b = new StringBuilder();
        HumanEdits.regions(t).forEach(r -> b.append(r.text()));
        assertEquals(t, b.toString());
        assertEquals(HumanEdits.HEAD, HumanEdits.regions(t).get(0).key());
        assertEquals("identity", HumanEdits.regions(t).get(1).key());
    }

    @Test
    void sameText_isUnchanged() {
        assertInstanceOf(HumanEdits.Unchanged.class, diff(critic(), critic()));
    }

    @Test
    void editInOneSection_isOneRegionChange_thatReplaysByteForByte() {
        String before = critic();
        String after = before.replace("strict teacher", "strict, tired teacher");
        HumanEdits.Regions r = assertInstanceOf(HumanEdits.Regions.class, diff(before, after));
        assertEquals(1, r.changes().size());
        HumanEdits.RegionChange c = r.changes().get(0);
        assertEquals("identity", c.key());
        assertTrue(!c.beforeHash().equals(c.afterHash()));
        assertEquals(
                after,
                HumanEdits.applyRegion(before, c.key(), c.index(), c.after()).orElseThrow());
    }

    @Test
    void editsInTwoSectionsAndFrontmatter_areThreeChanges() {
        String before = critic();
        String after = before.replace("summary: \"Part profile", "summary: \"Profile")
                .replace("strict teacher", "teacher")
                .replace("flawless work", "flawless, fast work");
        HumanEdits.Regions r = assertInstanceOf(HumanEdits.Regions.class, diff(before, after));
        assertEquals(
                List.of(HumanEdits.HEAD, "identity", "role"),
                r.changes().stream().map(HumanEdits.RegionChange::key).toList());
        String replayed = before;
        for (HumanEdits.RegionChange c : r.changes()) {
            replayed = HumanEdits.applyRegion(replayed, c.key(), c.index(), c.after())
                    .orElseThrow();
        }
        assertEquals(after, replayed);
    }

    @Test
    void removedAnchor_breaksTheGrammar() {
        String before = critic();
        String after = before.replace("<!-- @anchor: role v1 -->\n", "");
        HumanEdits.Breaks b = assertInstanceOf(HumanEdits.Breaks.class, diff(before, after));
        assertEquals("grammar_broken", b.kind());
        assertTrue(b.problems().stream().anyMatch(p -> p.rule().equals("anchor-missing")), b.toString());
    }

    @Test
    void renamedCoreHeading_breaksTheGrammar() {
        String before = critic();
        HumanEdits.Breaks b =
                assertInstanceOf(HumanEdits.Breaks.class, diff(before, before.replace("## Role\n", "## Job\n")));
        assertEquals("grammar_broken", b.kind());
    }

    @Test
    void deletedChangeLog_breaksTheGrammar() {
        String before = critic();
        int at = before.indexOf("## Change Log");
        int next = before.indexOf("## Extensions");
        String after = before.substring(0, at) + before.substring(next);
        HumanEdits.Breaks b = assertInstanceOf(HumanEdits.Breaks.class, diff(before, after));
        assertTrue(b.problems().stream().anyMatch(p -> p.rule().equals("change-log-missing")), b.toString());
    }

    @Test
    void editedId_isDrift() {
        String before = critic();
        String after = before.replace("id: 01JC7X00000000000000000003", "id: 01JC7X00000000000000000009");
        HumanEdits.Breaks b = assertInstanceOf(HumanEdits.Breaks.class, diff(before, after));
        assertEquals("id_edited", b.kind());
        assertTrue(b.reason().contains("slice.id"), b.reason());
    }

    @Test
    void deletedFile_isDrift() {
        assertEquals(
                "deleted",
                assertInstanceOf(HumanEdits.Breaks.class, diff(critic(), null)).kind());
    }

    @Test
    void newLintCleanFile_isWholeFile() {
        HumanEdits.WholeFile w = assertInstanceOf(HumanEdits.WholeFile.class, diff(null, critic()));
        assertEquals(critic(), w.text());
    }

    @Test
    void addedExtensionsSubsection_staysInsideItsRegion() {
        String before = critic();
        String after = before + "\n### Sketch\n\nA drawing of the critic as a crow.\n";
        HumanEdits.Regions r = assertInstanceOf(HumanEdits.Regions.class, diff(before, after));
        assertEquals("extensions", r.changes().get(0).key());
    }

    @Test
    void applyRegion_onAFileOfAnotherShape_isEmpty() {
        String t = critic();
        assertTrue(HumanEdits.applyRegion(t, "role", 1, "## Role\n").isEmpty());
        assertTrue(HumanEdits.applyRegion(t, "role", 99, "## Role\n").isEmpty());
    }

    @Test
    void randomEditsInsideSections_alwaysReplayByteForByte() {
        Random rnd = new Random(7);
        String before = critic();
        List<HumanEdits.Region> regions = HumanEdits.regions(before);
        for (int round = 0; round < 200; round++) {
            String after = before;
            for (int k = 0; k < 1 + rnd.nextInt(3); k++) {
                HumanEdits.Region r = regions.get(1 + rnd.nextInt(regions.size() - 1));
                int lineEnd = r.text().indexOf('\n', r.text().indexOf("-->") + 4);
                int at = r.start() + (lineEnd < 0 ? r.text().length() : lineEnd + 1);
                int shift = after.length() - before.length();
                String ins = "word" + rnd.nextInt(1000) + (rnd.nextBoolean() ? "\r\n" : " ");
                int pos = Math.min(after.length(), at + Math.max(0, shift));
                after = after.substring(0, pos) + ins + after.substring(pos);
            }
            HumanEdits.Diff d = diff(before, after);
            if (d instanceof HumanEdits.Regions rs) {
                String replayed = before;
                for (HumanEdits.RegionChange c : rs.changes()) {
                    replayed = HumanEdits.applyRegion(replayed, c.key(), c.index(), c.after())
                            .orElseThrow();
                }
                assertEquals(after, replayed);
            } else if (d instanceof HumanEdits.WholeFile w) {
                assertEquals(after, w.text());
            }
        }
    }

    @Test
    void boundedReanchor_withinTheBound_renamesTheOneNearSection() {
        String t = critic().replace("## Role\n<!-- @anchor: role v1 -->\n", "## Roles\n");
        assertEquals(1, HumanEdits.reanchorBound("Role"));
        HumanEdits.Reanchored r = HumanEdits.boundedReanchor(TestSupport.grammar(), CRITIC, t, "role");
        assertEquals(critic(), r.text(), r.error());
    }

    @Test
    void boundedReanchor_pastTheBound_fails() {
        String t = critic().replace("## Role\n<!-- @anchor: role v1 -->\n", "## Rolls\n");
        HumanEdits.Reanchored r = HumanEdits.boundedReanchor(TestSupport.grammar(), CRITIC, t, "role");
        assertEquals(null, r.text());
        assertTrue(r.error().contains("within 1 edits"), r.error());
    }

    @Test
    void boundedReanchor_outsideTheRegion_fails() {
        // "Role" misspelt, but moved after Triggers: not between Identity and Triggers
        String t = critic().replace("## Role\n<!-- @anchor: role v1 -->\n", "## Needz\n");
        HumanEdits.Reanchored r = HumanEdits.boundedReanchor(TestSupport.grammar(), CRITIC, t, "needs");
        assertEquals(null, r.text());
    }

    @Test
    void boundedReanchor_twoCandidates_isAmbiguous() {
        String t = critic().replace("## Role\n<!-- @anchor: role v1 -->\n", "## Rol\n\nx\n\n## Rose\n");
        HumanEdits.Reanchored r = HumanEdits.boundedReanchor(TestSupport.grammar(), CRITIC, t, "role");
        assertTrue(r.error().contains("unambiguous"), r.error());
    }
}
