package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Maintainers' grammar changes as pure functions: the next grammar, its YAML, and files migrated by a promotion. */
class GrammarEditTest {
    private static final RepoPath CRITIC = RepoPath.of("users/sam/parts/inner-critic/profile.md");

    private static GrammarEdit.Edited edited(Grammar g, GrammarEdit.Change c) {
        return assertInstanceOf(GrammarEdit.Edited.class, GrammarEdit.apply(g, c));
    }

    @Test
    void promote_addsACoreSectionBeforeTheTrailingOnes_bumpsTheVersion_andTheYamlLoadsBackTheSame() {
        Grammar g = TestSupport.grammar();
        GrammarEdit.Edited e = edited(g, new GrammarEdit.Promote("part", "Voice notes", SectionKind.NARRATIVE));
        FileType part = e.grammar().fileType("part");
        List<String> anchors = part.sections().stream().map(SectionDef::anchor).toList();
        assertEquals(
                List.of("evolution", "voice-notes", "open-questions", "change-log", "extensions"),
                anchors.subList(anchors.size() - 5, anchors.size()));
        assertTrue(part.section("voice-notes").orElseThrow().core());
        assertEquals(g.version() + 1, e.grammar().version());
        assertTrue(e.grammar()
                .templates()
                .get("part.md")
                .contains("## Voice notes\n<!-- @anchor: voice-notes v1 -->\n\n## Open Questions"));
        Grammar reloaded = Grammar.load(e.yaml(), e.grammar().templates());
        assertEquals(e.yaml(), GrammarEdit.toYaml(reloaded), "writing the grammar back gives the same text");
        assertEquals(e.grammar().fileTypes(), reloaded.fileTypes());
    }

    @Test
    void migrate_movesTheSubsectionWithItsText_andGivesAFileWithoutItTheEmptySection() {
        Grammar g = TestSupport.grammar();
        GrammarEdit.Edited e = edited(g, new GrammarEdit.Promote("part", "Voice notes", SectionKind.NARRATIVE));
        FileType part = e.grammar().fileType("part");
        String critic = TestSupport.exampleTree().get(CRITIC);
        String moved = Promotion.migrate(critic, part.sections(), e.promoted());
        assertTrue(
                moved.contains(
                        "## Voice notes\n<!-- @anchor: voice-notes v1 -->\n\nSpeaks in short imperative sentences;"
                                + " softer when thanked.\n\n## Open Questions\n"),
                moved);
        assertFalse(moved.contains("### Voice notes"), moved);
        assertEquals(List.of(), new Linter().lint(e.grammar(), CRITIC, moved));
        assertEquals(moved, Promotion.migrate(moved, part.sections(), e.promoted()), "a migrated file stays as it is");

        String empty = Promotion.migrate(g.template("part.md"), part.sections(), e.promoted());
        assertEquals(e.grammar().templates().get("part.md"), empty);
    }

    @Test
    void refusals_areValues_andTheGrammarIsUnchanged() {
        Grammar g = TestSupport.grammar();
        GrammarEdit.Refused taken = assertInstanceOf(
                GrammarEdit.Refused.class,
                GrammarEdit.apply(g, new GrammarEdit.Promote("part", "Role", SectionKind.NARRATIVE)));
        assertFalse(taken.unknown());
        assertTrue(assertInstanceOf(
                        GrammarEdit.Refused.class,
                        GrammarEdit.apply(g, new GrammarEdit.Promote("pets", "X", SectionKind.LIST)))
                .unknown());
        assertFalse(
                assertInstanceOf(
                                GrammarEdit.Refused.class,
                                GrammarEdit.apply(g, new GrammarEdit.Promote("notes", "X", SectionKind.LIST)))
                        .unknown(),
                "notes have no Extensions");
        assertTrue(assertInstanceOf(
                        GrammarEdit.Refused.class,
                        GrammarEdit.apply(g, new GrammarEdit.SetCap("part", "Nope", "max_items", 3)))
                .unknown());
        assertInstanceOf(
                GrammarEdit.Refused.class,
                GrammarEdit.apply(g, new GrammarEdit.SetCap("part", "Role", "max_items", 3)));
        GrammarEdit.Edited rejected = edited(g, new GrammarEdit.Reject("part", "Rituals"));
        assertEquals(
                List.of(new Grammar.Rejection("part", "Rituals")),
                rejected.grammar().rejections());
        assertInstanceOf(
                GrammarEdit.Refused.class,
                GrammarEdit.apply(rejected.grammar(), new GrammarEdit.Reject("part", "Rituals")));
        assertEquals(1, g.version());
    }

    @Test
    void setCap_isWhatTheLinterThenHoldsFilesTo() {
        Grammar g = TestSupport.grammar();
        GrammarEdit.Edited e = edited(g, new GrammarEdit.SetCap("part", "role", "max_words", 3));
        assertEquals(
                3,
                e.grammar()
                        .fileType("part")
                        .section("role")
                        .orElseThrow()
                        .maxWords()
                        .getAsInt());
        Map<RepoPath, String> tree = TestSupport.exampleTree();
        assertTrue(new Linter()
                .lint(e.grammar(), CRITIC, tree.get(CRITIC)).stream()
                        .anyMatch(p -> p.rule().equals("cap-words")));
        assertTrue(new Linter().lint(g, CRITIC, tree.get(CRITIC)).isEmpty());
    }

    @Test
    void setKind_turnsANarrativeSectionIntoAListAndBack_withANewSectionsCaps_andRefusesFixedKinds() {
        Grammar g = TestSupport.grammar();
        GrammarEdit.Edited list = edited(g, new GrammarEdit.SetKind("part", "Concerns", SectionKind.LIST));
        SectionDef concerns =
                list.grammar().fileType("part").section("concerns").orElseThrow();
        assertEquals(SectionKind.LIST, concerns.kind());
        assertTrue(concerns.maxWords().isEmpty() && concerns.maxItems().isEmpty());
        assertTrue(
                list.yaml().contains("{name: \"Concerns\", anchor: \"concerns\", kind: list, core: true}\n"),
                list.yaml());
        assertEquals(
                list.yaml(),
                GrammarEdit.toYaml(Grammar.load(list.yaml(), list.grammar().templates())));
        SectionDef back = edited(list.grammar(), new GrammarEdit.SetKind("part", "concerns", SectionKind.NARRATIVE))
                .grammar()
                .fileType("part")
                .section("concerns")
                .orElseThrow();
        assertEquals(SectionKind.NARRATIVE, back.kind());
        assertEquals(GrammarEdit.DEFAULT_MAX_WORDS, back.maxWords().getAsInt());

        assertTrue(assertInstanceOf(
                        GrammarEdit.Refused.class,
                        GrammarEdit.apply(g, new GrammarEdit.SetKind("part", "Nope", SectionKind.LIST)))
                .unknown());
        for (GrammarEdit.SetKind k : List.of(
                new GrammarEdit.SetKind("part", "Triggers", SectionKind.LIST),
                new GrammarEdit.SetKind("part", "evidence", SectionKind.NARRATIVE),
                new GrammarEdit.SetKind("part", "Change Log", SectionKind.LIST),
                new GrammarEdit.SetKind("part", "Extensions", SectionKind.NARRATIVE),
                new GrammarEdit.SetKind("part", "Role", SectionKind.LOG))) {
            assertFalse(
                    assertInstanceOf(GrammarEdit.Refused.class, GrammarEdit.apply(g, k))
                            .unknown(),
                    k.toString());
        }
    }
}
