package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LinterTest {

    private final Linter linter = new Linter();
    private final Grammar g = TestSupport.grammar();

    private List<LintProblem> lint(RepoPath p, String text) {
        return linter.lint(g, p, text);
    }

    private void assertOnly(String rule, int line, List<LintProblem> problems) {
        assertEquals(1, problems.size(), () -> "expected exactly one " + rule + ", got " + problems);
        assertEquals(rule, problems.get(0).rule(), problems::toString);
        assertEquals(line, problems.get(0).line(), problems::toString);
    }

    private static String critic() {
        return TestSupport.exampleTree().get(TestSupport.CRITIC);
    }

    private static int lineOf(String text, String needle) {
        int idx = text.indexOf(needle);
        assertTrue(idx >= 0, needle);
        return (int) text.substring(0, idx).chars().filter(c -> c == '\n').count() + 1;
    }

    @Test
    void frontmatterFindings_areReusedOnlyForTheSamePath_andTheSameFrontmatter() {
        String t = critic();
        assertEquals(List.of(), lint(TestSupport.CRITIC, t));
        // same text, another part's path: its identity fields are wrong there, cached or not
        RepoPath other = RepoPath.of("users/sam/parts/inner-judge/profile.md");
        assertOnly("identity-field", lineOf(t, "entity_id:"), lint(other, t));
        // same frontmatter, another body: the frontmatter's findings stay, the body's are its own
        assertEquals(List.of(), lint(TestSupport.CRITIC, t + "\n"));
        String broken = t.replace("last_updated: ", "last_updated: not-a-time-");
        assertOnly("identity-field", lineOf(broken, "last_updated:"), lint(TestSupport.CRITIC, broken));
        assertOnly("identity-field", lineOf(broken, "last_updated:"), lint(TestSupport.CRITIC, broken + "\n"));
    }

    @Test
    void exampleTree_lintsClean() {
        Map<RepoPath, String> tree = TestSupport.exampleTree();
        assertEquals(8, tree.size(), tree.keySet()::toString);
        tree.forEach((p, t) -> assertEquals(List.of(), lint(p, t), p.value()));
    }

    @Test
    void filledTemplates_lintClean() {
        ApplyResult.Applied a = TestSupport.applied(TestSupport.apply(
                TestSupport.exampleTree(),
                new CreateEntity(
                        "sam",
                        "part",
                        "new-part",
                        "New: \"part\"",
                        List.of(),
                        List.of("01JC7Z00000000000000000001", "01JC7Z00000000000000000002")),
                new CreateEntity(
                        "sam",
                        "relationship",
                        "rel-x",
                        "Rel X",
                        List.of("inner-critic", "young-one"),
                        List.of("01JC7Z00000000000000000003", "01JC7Z00000000000000000004"))));
        assertEquals(4, a.newContents().size());
        a.newContents().forEach((p, t) -> assertEquals(List.of(), lint(p, t), p.value()));
        ApplyResult.Applied u = TestSupport.applied(TestSupport.apply(
                Map.of(),
                new CreateEntity(
                        "ann",
                        "user",
                        null,
                        "Ann",
                        List.of(),
                        List.of("01JC7Z00000000000000000005", "01JC7Z00000000000000000006"))));
        u.newContents().forEach((p, t) -> assertEquals(List.of(), lint(p, t), p.value()));
    }

    @Test
    void unknownPath_reportsFileTypeUnknownOnly() {
        assertOnly("file-type-unknown", 1, lint(RepoPath.of("users/sam/other.md"), "whatever"));
    }

    @Test
    void noFrontmatter_reportsFrontmatterMissing() {
        String t = critic();
        String body = t.substring(t.indexOf("# Inner Critic"));
        List<LintProblem> ps = lint(TestSupport.CRITIC, body);
        assertEquals("frontmatter-missing", ps.get(0).rule());
        assertEquals(1, ps.get(0).line());
    }

    /**
     * A file an editor saved with a UTF-8 byte order mark opens with U+FEFF, not "---": the
     * problem names the mark (the human sees "---" at the top in their editor), not a missing block.
     */
    @Test
    void aByteOrderMarkBeforeTheFrontmatter_isNamedAsSuch() {
        List<LintProblem> ps = lint(TestSupport.CRITIC, "\uFEFF" + critic());
        assertEquals(1, ps.size(), ps::toString);
        assertEquals("frontmatter-missing", ps.get(0).rule());
        assertEquals(1, ps.get(0).line());
        assertTrue(ps.get(0).message().contains("byte order mark"), ps.get(0).message());
        assertFalse(
                lint(TestSupport.CRITIC, critic().substring(4)).get(0).message().contains("byte order mark"),
                "a file without the mark is told the block is missing");
    }

    @Test
    void brokenYaml_reportsFrontmatterInvalid() {
        String t = critic().replace("  kind: context\n", "  kind: [context\n");
        List<LintProblem> ps = lint(TestSupport.CRITIC, t);
        assertEquals("frontmatter-invalid", ps.get(0).rule(), ps::toString);
    }

    @Test
    void unclosedFrontmatter_reportsFrontmatterInvalid() {
        String t = critic().replaceFirst("\n---\n# Inner", "\n# Inner");
        List<LintProblem> ps = lint(TestSupport.CRITIC, t);
        assertEquals("frontmatter-invalid", ps.get(0).rule(), ps::toString);
    }

    @Test
    void wrongVersion_reportsSliceRequiredFieldAtItsLine() {
        String t = critic().replace("  v: \"1\"", "  v: 1");
        assertOnly("slice-required-field", 3, lint(TestSupport.CRITIC, t));
    }

    @Test
    void missingSummary_reportsSliceRequiredField() {
        String t = critic().replaceFirst("  summary: .*\n", "");
        assertOnly("slice-required-field", 2, lint(TestSupport.CRITIC, t));
    }

    @Test
    void badContractWriteMode_reportsSliceInvalidAtItsLine() {
        String t = critic().replaceFirst("    write: replace", "    write: overwrite");
        List<LintProblem> ps = lint(TestSupport.CRITIC, t);
        assertOnly("slice-invalid", lineOf(t, "write: overwrite"), ps);
        assertTrue(ps.get(0).message().contains("slice.contract.write"), ps::toString);
    }

    @Test
    void entityIdNotMatchingPath_reportsIdentityField() {
        String t = critic().replace("entity_id: inner-critic", "entity_id: someone-else");
        assertOnly("identity-field", lineOf(t, "entity_id:"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void badLastUpdated_reportsIdentityField() {
        String t = critic().replace("last_updated: 2026-11-14T10:30:00Z", "last_updated: yesterday");
        assertOnly("identity-field", lineOf(t, "last_updated:"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void missingH1_reportsH1Missing() {
        String t = critic().replace("# Inner Critic\n", "");
        // Reported where the title belongs: the first line after the frontmatter.
        assertOnly("h1-missing", lineOf(t, "---\n\n## Identity") + 1, lint(TestSupport.CRITIC, t));
    }

    @Test
    void unknownHeading_reportsSectionUnknown() {
        String t = critic().replace("## Allies\n", "## Friends\n");
        List<LintProblem> ps = lint(TestSupport.CRITIC, t);
        assertEquals("section-unknown", ps.get(0).rule(), ps::toString);
        assertEquals(lineOf(t, "## Friends"), ps.get(0).line());
        assertTrue(
                ps.get(0).message().contains("did you mean 'Allies'"), ps.get(0).message());
        assertEquals("section-missing", ps.get(1).rule());
    }

    @Test
    void deletedSection_reportsSectionMissingAtNextSection() {
        String t = critic().replace(
                        "## Allies\n<!-- @anchor: allies v1 -->\n\n- The planner part that keeps to-do lists\n\n", "");
        assertOnly("section-missing", lineOf(t, "## Polarizations"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void swappedSections_reportsSectionOrder() {
        String t = critic();
        String needs = "## Needs\n<!-- @anchor: needs v1 -->\n\n- To be consulted before deadlines are set\n"
                + "- Reassurance that the young one is being looked after\n\n";
        assertTrue(t.contains(needs));
        t = t.replace(needs, "");
        t = t.replace("## Triggers\n", needs + "## Triggers\n");
        assertOnly("section-order", lineOf(t, "## Triggers"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void repeatedSection_reportsSectionDuplicate() {
        String t = critic() + "\n## Role\n<!-- @anchor: role v1 -->\n\nAgain.\n";
        assertOnly(
                "section-duplicate",
                lineOf(t, "## Role\n<!-- @anchor: role v1 -->\n\nAgain."),
                lint(TestSupport.CRITIC, t));
    }

    @Test
    void missingAnchor_reportsAnchorMissing() {
        String t = critic().replace("<!-- @anchor: needs v1 -->\n", "");
        assertOnly("anchor-missing", lineOf(t, "## Needs"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void wrongAnchor_reportsAnchorMismatchAtAnchorLine() {
        String t = critic().replace("<!-- @anchor: needs v1 -->", "<!-- @anchor: wants v1 -->");
        assertOnly("anchor-mismatch", lineOf(t, "<!-- @anchor: wants"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void linkRefAnchor_isAccepted() {
        String t = critic().replace("<!-- @anchor: needs v1 -->", "[//]: # (anchor: needs v1)");
        assertEquals(List.of(), lint(TestSupport.CRITIC, t));
    }

    @Test
    void removedChangeLog_reportsChangeLogMissing() {
        String t = critic();
        int a = t.indexOf("## Change Log");
        int b = t.indexOf("## Extensions");
        t = t.substring(0, a) + t.substring(b);
        assertOnly("change-log-missing", lineOf(t, "## Extensions"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void longNarrative_reportsCapWords() {
        String t = critic().replace("Protector. It pushes", "word ".repeat(400) + "Protector. It pushes");
        assertOnly("cap-words", lineOf(t, "## Role"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void eightEvidenceItems_reportsCapItems() {
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            items.append("- \"q")
                    .append(i)
                    .append("\" (ev:20261101T100000Z-01JC7Y0000000000000000010")
                    .append(i)
                    .append(")\n");
        }
        String t = critic().replace("\n## Working Agreements", items + "\n## Working Agreements");
        assertOnly("cap-items", lineOf(t, "## Evidence (curated)"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void evidenceWithoutToken_reportsEvidenceTokenAtBulletLine() {
        String t = critic().replace("(ev:20261101T100000Z-01JC7Y00000000000000000001)", "(first conversation)");
        assertOnly("evidence-token", lineOf(t, "- \"If I don't push"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void evidenceWithoutQuote_reportsEvidenceToken() {
        String t = critic().replace("\"I'm tired of being the bad guy.\"", "tired of being the bad guy");
        assertOnly("evidence-token", lineOf(t, "- tired of"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void evidenceWithBadTimestamp_reportsEvidenceToken() {
        String t = critic().replace("ev:20261101T100000Z", "ev:20261301T100000Z");
        assertOnly("evidence-token", lineOf(t, "- \"If I don't push"), lint(TestSupport.CRITIC, t));
    }

    @Test
    void headingInsideCodeFence_isNotASection() {
        String t = critic().replace("Speaks in short", "```\n## Role\n```\n\nSpeaks in short");
        assertEquals(List.of(), lint(TestSupport.CRITIC, t));
    }

    @Test
    void notesFile_sectionsOptionalButOrdered() {
        RepoPath notes = TestSupport.NOTES;
        String t = TestSupport.exampleTree().get(notes);
        String withoutInbox = t.replaceFirst("## Inbox\n<!-- @anchor: inbox v1 -->\n\n(- .*\n)+\n", "");
        assertEquals(List.of(), lint(notes, withoutInbox));
        String focus = "## Parking Lot\n<!-- @anchor: parking-lot v1 -->\n\n- Family history around school grades\n\n";
        String swapped = t.replace(focus, "").replace("## Focus\n", focus + "## Focus\n");
        assertOnly("section-order", lineOf(swapped, "## Focus"), lint(notes, swapped));
    }
}
