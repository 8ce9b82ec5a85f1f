package dev.memoryd.grammar;

import static dev.memoryd.grammar.TestSupport.CRITIC;
import static dev.memoryd.grammar.TestSupport.NOTES;
import static dev.memoryd.grammar.TestSupport.applied;
import static dev.memoryd.grammar.TestSupport.apply;
import static dev.memoryd.grammar.TestSupport.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DeclarationsTest {

    private final Map<RepoPath, String> tree = TestSupport.exampleTree();
    private static final List<String> IDS = List.of("01JC7Z00000000000000000001", "01JC7Z00000000000000000002");

    private static String ev(String quote, int n) {
        return "\"" + quote + "\" (ev:20261121T093000Z-01JC7Y" + String.format("%020d", n) + ")";
    }

    @Test
    void replaceSection_withSameContent_isNoChange() {
        ApplyResult.Applied a = applied(apply(
                tree,
                new ReplaceSection(
                        CRITIC,
                        "Role",
                        "Protector. It pushes for flawless work so that nobody can laugh at Sam again.")));
        assertFalse(a.changed());
        assertTrue(a.newContents().isEmpty());
        assertFalse(a.outcomes().get(0).changed());
    }

    @Test
    void replaceSection_twice_isStable() {
        ReplaceSection op = new ReplaceSection(CRITIC, "Role", "\n\nNew role text.  \n\n\n");
        String once = applied(apply(tree, op)).newContents().get(CRITIC);
        tree.put(CRITIC, once);
        assertFalse(applied(apply(tree, op)).changed());
    }

    @Test
    void outcome_carriesHashesOfCanonicalBodies() {
        ApplyResult.Applied a = applied(apply(tree, new ReplaceSection(CRITIC, "role", "New role.")));
        OpOutcome o = a.outcomes().get(0);
        assertEquals("role", o.sectionAnchor());
        assertEquals(
                TestSupport.sha256("Protector. It pushes for flawless work so that nobody can laugh at Sam again.\n"),
                o.beforeHash());
        assertEquals(TestSupport.sha256("New role.\n"), o.afterHash());
        assertEquals("replaced Role", o.summary());
    }

    @Test
    void beforeHash_matching_isAccepted_andStale_isConflictWithCurrentHash() {
        String current =
                TestSupport.sha256("Protector. It pushes for flawless work so that nobody can laugh at Sam again.\n");
        applied(apply(tree, new ReplaceSection(CRITIC, "Role", "x", current, List.of(), null)));
        ApplyResult.Rejected r =
                rejected(apply(tree, new ReplaceSection(CRITIC, "Role", "x", "stale", List.of(), null)));
        assertEquals(Reason.CONFLICT, r.reason());
        assertEquals(current, r.details().get("current_hash"));
    }

    @Test
    void appendItem_overCap_needsOverrideRationale() {
        Op[] ops = new Op[6];
        for (int i = 0; i < 6; i++) {
            ops[i] = new AppendItem(CRITIC, "evidence", ev("q" + i, i + 1));
        }
        ApplyResult.Rejected r = rejected(apply(tree, ops));
        assertEquals(Reason.CAP_EXCEEDED, r.reason());
        assertEquals(5, r.opIndex());
        assertEquals(7, r.details().get("limit"));
        assertEquals(8, r.details().get("actual"));
        ops[5] = new AppendItem(CRITIC, "evidence", ev("q5", 6), null, List.of(), "three sessions agree");
        String text = applied(apply(tree, ops)).newContents().get(CRITIC);
        assertTrue(text.contains("- 2026-11-21: cap override on Evidence (curated): three sessions agree\n"), text);
        assertTrue(text.contains("- 2026-11-21: added 6 evidence items\n"), text);
    }

    @Test
    void replaceSection_overWordCap_needsOverrideRationale() {
        ApplyResult.Rejected r = rejected(apply(tree, new ReplaceSection(CRITIC, "Role", "word ".repeat(401))));
        assertEquals(Reason.CAP_EXCEEDED, r.reason());
        assertEquals(401, r.details().get("actual"));
    }

    @Test
    void appendItem_evidenceNeedsQuoteAndValidToken() {
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(
                                tree,
                                new AppendItem(
                                        CRITIC, "evidence", "no quote ev:20261121T093000Z-01JC7Y00000000000000000001")))
                        .reason());
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(
                                tree,
                                new AppendItem(CRITIC, "evidence", "\"q\" ev:2026-11-21-01JC7Y00000000000000000001")))
                        .reason());
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(
                                tree,
                                new AppendItem(
                                        CRITIC, "evidence", "\"q\" ev:20261121T253000Z-01JC7Y00000000000000000001")))
                        .reason());
        applied(apply(
                tree,
                new AppendItem(CRITIC, "evidence", "\u201cq\u201d ev:20261121T093000Z-01JC7Y00000000000000000001")));
    }

    @Test
    void lockedSection_isRefused_otherSectionsAreNot_andTheLinterAcceptsTheLock() {
        tree.put(
                CRITIC,
                tree.get(CRITIC)
                        .replace("    last_updated:", "    locked_sections: [role, Triggers]\n    last_updated:"));
        assertTrue(
                new Linter()
                        .lint(TestSupport.grammar(), CRITIC, tree.get(CRITIC))
                        .isEmpty(),
                new Linter()
                        .lint(TestSupport.grammar(), CRITIC, tree.get(CRITIC))
                        .toString());
        ApplyResult.Rejected r = rejected(apply(tree, new ReplaceSection(CRITIC, "Role", "x")));
        assertEquals(Reason.SECTION_LOCKED, r.reason());
        assertEquals("role", r.details().get("section"));
        assertEquals(
                Reason.SECTION_LOCKED,
                rejected(apply(tree, new AppendItem(CRITIC, "triggers", "x"))).reason());
        applied(apply(tree, new AppendItem(CRITIC, "Needs", "x")));
    }

    @Test
    void anyOpOnChangeLog_isProhibited() {
        for (Op op : List.of(
                new ReplaceSection(CRITIC, "Change Log", "x"),
                new AppendItem(CRITIC, "change-log", "x"),
                new TombstoneSection(CRITIC, "Change Log", "x"),
                new CurateItems(CRITIC, "Change Log", List.of("x"), List.of(), "r"))) {
            ApplyResult.Rejected r = rejected(apply(tree, op));
            assertEquals(Reason.PROHIBITED, r.reason(), op.toString());
            assertEquals("the Change Log is written by the daemon", r.message());
        }
    }

    @Test
    void forgedStructureInContent_isProhibited() {
        for (String c :
                List.of("# H1", "x\n## Needs", "<!-- @anchor: needs v1 -->", "---\nslice: {}", "<!--\nopen comment")) {
            assertEquals(
                    Reason.PROHIBITED,
                    rejected(apply(tree, new ReplaceSection(CRITIC, "Role", c))).reason(),
                    c);
        }
        applied(apply(tree, new ReplaceSection(CRITIC, "Extensions", "### Sub\n\nfine")));
    }

    @Test
    void aCodeFenceOrCommentLeftOpen_isProhibited_evenInTheLastSection_whereItChangesNoHeading() {
        for (String c : List.of("start\n```\ncode", "~~~\ncode", "x\n\n````\n```\n", "<!-- open\ncomment")) {
            for (Op op : List.of(new ReplaceSection(NOTES, "Drafts", c), new AppendSection(NOTES, "Drafts", c))) {
                ApplyResult.Rejected r = rejected(apply(tree, op));
                assertEquals(Reason.PROHIBITED, r.reason(), op.toString());
                assertTrue(r.message().contains("code fence") || r.message().contains("HTML comment"), r.message());
            }
        }
        // Recorded before the rule: a replay redoes it as it was written.
        ApplyResult.Applied replayed = applied(Declarations.replay(
                TestSupport.grammar(),
                TestSupport.source(tree),
                List.of(new AppendSection(NOTES, "Drafts", "start\n```\ncode")),
                TestSupport.NOW,
                TestSupport.HASHER));
        assertTrue(replayed.newContents().get(NOTES).endsWith("start\n```\ncode\n"));
    }

    @Test
    void anUnderlinedHeading_isProhibited_naming_itsLines_butARuleAfterABlankLineIsText() {
        String c = "Summary of the week\nin two lines\n---\nmore";
        for (Op op : List.of(new ReplaceSection(CRITIC, "Role", c), new AppendSection(NOTES, "Drafts", c))) {
            ApplyResult.Rejected r = rejected(apply(tree, op));
            assertEquals(Reason.PROHIBITED, r.reason(), op.toString());
            assertTrue(r.message().startsWith("content line 3 (---) underlines line 1 as an H2 heading"), r.message());
        }
        assertTrue(rejected(apply(tree, new ReplaceSection(CRITIC, "Role", "Title\n===")))
                .message()
                .contains("as an H1 heading"));
        applied(apply(tree, new ReplaceSection(CRITIC, "Role", "A role.\n\n---\n\nafter a rule")));
        applied(apply(tree, new ReplaceSection(CRITIC, "Role", "A role.\n\n```\ncode\n---\n```")));
        // Recorded before the rule: a replay redoes it as it was written.
        ApplyResult.Applied replayed = applied(Declarations.replay(
                TestSupport.grammar(),
                TestSupport.source(tree),
                List.of(new AppendSection(NOTES, "Drafts", c)),
                TestSupport.NOW,
                TestSupport.HASHER));
        assertTrue(replayed.newContents().get(NOTES).endsWith(c + "\n"));
    }

    @Test
    void aClosedCodeFence_holdsBlankLinesAndHeadings_asCode() {
        String code = "Some code:\n```\n## not a section\n\n\n# nor this\n```";
        ApplyResult.Applied a = applied(apply(tree, new AppendSection(NOTES, "Focus", code)));
        String text = a.newContents().get(NOTES);
        assertTrue(text.contains(code + "\n"), "the code as it was sent, blank lines and all: " + text);
        assertEquals(
                MemoryDocument.parse(tree.get(NOTES)).h2Sections().stream()
                        .map(MemoryDocument.Section::heading)
                        .toList(),
                MemoryDocument.parse(text).h2Sections().stream()
                        .map(MemoryDocument.Section::heading)
                        .toList());
        applied(apply(tree, new ReplaceSection(CRITIC, "Role", "A role.\n\n~~~\n## code\n~~~")));
        // Outside a fence, still one paragraph and no H2.
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(tree, new AppendSection(NOTES, "Focus", "```\nx\n```\n\nafter")))
                        .reason());
        assertEquals(
                Reason.PROHIBITED,
                rejected(apply(tree, new ReplaceSection(CRITIC, "Role", "```\nx\n```\n## Needs")))
                        .reason());
    }

    /**
     * A notes file whose sections are all optional, one removed by a person: a write to it was
     * refused as {@code drift} ("the file waits for a maintainer") though no drift item existed
     * and the file lints clean. It is an unknown section there, saying how to bring it back.
     */
    @Test
    void aWriteToAnOptionalSectionSomeoneRemoved_isUnknownSection_notDrift() {
        Map<RepoPath, String> files = new java.util.HashMap<>(tree);
        String notes = files.get(NOTES);
        int at = notes.indexOf("## Research");
        int end = notes.indexOf("\n## ", at + 1);
        files.put(NOTES, notes.substring(0, at) + notes.substring(end + 1));
        ApplyResult.Rejected r = rejected(apply(files, new AppendSection(NOTES, "Research", "r")));
        assertEquals(Reason.UNKNOWN_SECTION, r.reason(), r.message());
        assertTrue(r.message().contains("section 'Research' is not in users/sam/notes.md"), r.message());
        assertTrue(r.message().contains("add the section back"), r.message());
    }

    @Test
    void errors_mapToDesignReasons() {
        assertEquals(
                Reason.NOT_FOUND,
                rejected(apply(tree, new AppendItem(TestSupport.p("users/bob/overview.md"), "Active Themes", "x")))
                        .reason());
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(tree, new AppendItem(TestSupport.p("users/sam/x.md"), "Active Themes", "x")))
                        .reason());
        ApplyResult.Rejected u = rejected(apply(tree, new AppendItem(CRITIC, "Feelings", "x")));
        assertEquals(Reason.UNKNOWN_SECTION, u.reason());
        assertTrue(u.message().contains("Evidence (curated)"), u.message());
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(tree, new AppendItem(CRITIC, "Role", "x"))).reason());
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(tree, new AppendSection(CRITIC, "Role", "a\n\nb")))
                        .reason());
        assertEquals("cap_exceeded", Reason.CAP_EXCEEDED.wireName());
    }

    @Test
    void failingLaterOp_rejectsWholeDeclarationWithItsIndex() {
        ApplyResult.Rejected r =
                rejected(apply(tree, new AppendItem(CRITIC, "Triggers", "ok"), new AppendItem(CRITIC, "Nope", "x")));
        assertEquals(1, r.opIndex());
    }

    @Test
    void opsSeePreviousResults_andTouchedFilesKeepOrder() {
        ApplyResult.Applied a = applied(apply(
                tree,
                new AppendItem(TestSupport.OVERVIEW, "Active Themes", "Rest"),
                new AppendItem(CRITIC, "Triggers", "t1"),
                new CurateItems(CRITIC, "Triggers", List.of("t1"), List.of(), "added by mistake")));
        assertEquals(
                List.of(TestSupport.OVERVIEW, CRITIC),
                List.copyOf(a.newContents().keySet()));
        String text = a.newContents().get(CRITIC);
        assertFalse(text.contains("- t1\n"));
        assertTrue(text.contains("- 2026-11-21: added 1 item to Triggers; curated Triggers\n"), text);
    }

    @Test
    void untouchedSections_andLastUpdatedOnly_change() {
        String before = tree.get(CRITIC);
        String after = applied(apply(tree, new AppendItem(CRITIC, "Needs", "Sleep")))
                .newContents()
                .get(CRITIC);
        String expected = before.replace("last_updated: 2026-11-14T10:30:00Z", "last_updated: 2026-11-21T10:00:00Z")
                .replace("looked after\n", "looked after\n- Sleep\n")
                .replace("replaced Evolution\n", "replaced Evolution\n- 2026-11-21: added 1 item to Needs\n");
        assertEquals(expected, after);
    }

    /**
     * A file a human saved with CRLF line ends (an editor on Windows) keeps them: the item, the
     * Change Log line and the frontmatter's date memoryd writes end with CRLF too, and the sections'
     * hashes are those of the same file with LF.
     */
    @Test
    void aFileWithCrlfLineEnds_getsCrlfLinesFromEveryOp() {
        String lf = tree.get(CRITIC);
        tree.put(CRITIC, lf.replace("\n", "\r\n"));
        ApplyResult.Applied a = applied(apply(
                tree,
                new AppendItem(CRITIC, "Needs", "Sleep"),
                new ReplaceSection(CRITIC, "Role", "A new role.\n\nIn two paragraphs.")));
        String after = a.newContents().get(CRITIC);
        assertTrue(after.contains("- Sleep\r\n") && after.contains("A new role.\r\n\r\nIn two paragraphs.\r\n"), after);
        assertTrue(after.contains("- 2026-11-21: added 1 item to Needs; replaced Role\r\n"), after);
        assertFalse(after.replace("\r\n", "").contains("\n"), "no line ends with a lone LF: " + after);
        assertFalse(after.replace("\r\n", "").contains("\r"), "and none with a lone CR");

        Map<RepoPath, String> lfTree = TestSupport.exampleTree();
        ApplyResult.Applied same = applied(apply(
                lfTree,
                new AppendItem(CRITIC, "Needs", "Sleep"),
                new ReplaceSection(CRITIC, "Role", "A new role.\n\nIn two paragraphs.")));
        assertEquals(same.newContents().get(CRITIC), after.replace("\r\n", "\n"), "the same text, line ends aside");
        assertEquals(same.outcomes().get(0).afterHash(), a.outcomes().get(0).afterHash());
        assertEquals(same.outcomes().get(1).afterHash(), a.outcomes().get(1).afterHash());
        assertFalse(same.newContents().get(CRITIC).contains("\r"), "an LF file gets no CR");
    }

    /**
     * Replay writes CRLF lines only to the files the ledger says got them: lines recorded before
     * memoryd kept a file's CRLF line ends made a file that mixes the two, and replay gives those
     * bytes again, while a line that recorded the CRLF file replays to what {@code apply} wrote.
     */
    @Test
    void replay_keepsCrlfLineEndsOnlyForTheFilesNamed() {
        tree.put(CRITIC, tree.get(CRITIC).replace("\n", "\r\n"));
        List<Op> ops = List.of(new AppendItem(CRITIC, "Needs", "Sleep"));
        ApplyResult.Applied written = applied(apply(tree, ops.get(0)));
        assertEquals(Set.of(CRITIC), written.crlf(), "apply says which files kept CRLF");

        ApplyResult.Applied kept = applied(Declarations.replay(
                TestSupport.grammar(),
                TestSupport.source(tree),
                ops,
                TestSupport.NOW,
                TestSupport.HASHER,
                Set.of(),
                Set.of(CRITIC)));
        assertEquals(written.newContents().get(CRITIC), kept.newContents().get(CRITIC));

        ApplyResult.Applied older = applied(Declarations.replay(
                TestSupport.grammar(), TestSupport.source(tree), ops, TestSupport.NOW, TestSupport.HASHER));
        String mixed = older.newContents().get(CRITIC);
        assertTrue(mixed.contains("\n- Sleep\n") && mixed.contains("\r\n"), "LF lines among CRLF ones: " + mixed);
        assertEquals(
                written.newContents().get(CRITIC),
                mixed.replace("\r\n", "\n").replace("\n", "\r\n"),
                "the same text but for line ends");
        assertTrue(older.crlf().isEmpty());
    }

    @Test
    void createEntity_checksIdsParentsParticipantsAndExistence() {
        assertEquals(
                Reason.CONFLICT,
                rejected(apply(tree, new CreateEntity("sam", "part", "young-one", "Y", List.of(), IDS)))
                        .reason());
        assertEquals(
                Reason.NOT_FOUND,
                rejected(apply(tree, new CreateEntity("bob", "part", "x", "X", List.of(), IDS)))
                        .reason());
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(tree, new CreateEntity("sam", "part", "Bad Id", "X", List.of(), IDS)))
                        .reason());
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(tree, new CreateEntity("sam", "part", "x", "X", List.of(), List.of())))
                        .reason());
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(tree, new CreateEntity("sam", "relationship", "r", "R", List.of("inner-critic"), IDS)))
                        .reason());
        assertEquals(
                Reason.NOT_FOUND,
                rejected(apply(
                                tree,
                                new CreateEntity(
                                        "sam", "relationship", "r", "R", List.of("inner-critic", "ghost"), IDS)))
                        .reason());
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(tree, new CreateEntity("sam", "group", "r", "R", List.of(), IDS)))
                        .reason());
    }

    @Test
    void createEntity_thenWriteInSameDeclaration_mergesRollup() {
        ApplyResult.Applied a = applied(apply(
                tree,
                new CreateEntity("sam", "part", "planner", "Planner", List.of(), IDS),
                new ReplaceSection(TestSupport.p("users/sam/parts/planner/profile.md"), "Role", "Keeps lists.")));
        String text = a.newContents().get(TestSupport.p("users/sam/parts/planner/profile.md"));
        assertTrue(text.contains("- 2026-11-21: created part planner; replaced Role\n"), text);
        assertTrue(a.newContents().containsKey(TestSupport.p("users/sam/parts/planner/notes.md")));
        OpOutcome o = a.outcomes().get(0);
        assertNull(o.sectionAnchor());
        assertNull(o.beforeHash());
    }

    @Test
    void createEntity_user_needsNoParent() {
        ApplyResult.Applied a = applied(apply(Map.of(), new CreateEntity("ann", "user", null, "Ann", List.of(), IDS)));
        assertEquals(
                List.of(TestSupport.p("users/ann/overview.md"), TestSupport.p("users/ann/notes.md")),
                List.copyOf(a.newContents().keySet()));
    }

    @Test
    void tombstone_coreSection_isProhibited_butH3InCoreIsToo() {
        assertEquals(
                Reason.PROHIBITED,
                rejected(apply(tree, new TombstoneSection(CRITIC, "Role", "x"))).reason());
        tree.put(CRITIC, tree.get(CRITIC).replace("Protector. It", "### Detail\n\nProtector. It"));
        assertEquals(
                Reason.PROHIBITED,
                rejected(apply(tree, new TombstoneSection(CRITIC, "Detail", "x")))
                        .reason());
        assertEquals(
                Reason.UNKNOWN_SECTION,
                rejected(apply(tree, new TombstoneSection(CRITIC, "Nothing", "x")))
                        .reason());
    }

    @Test
    void curateItems_requiresReasonAndExistingItems() {
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(
                                tree,
                                new CurateItems(CRITIC, "Triggers", List.of("Client feedback emails"), List.of(), " ")))
                        .reason());
        assertEquals(
                Reason.INVALID_OP,
                rejected(apply(tree, new CurateItems(CRITIC, "Triggers", List.of(), List.of(), "r")))
                        .reason());
        ApplyResult.Rejected r = rejected(apply(
                tree,
                new CurateItems(
                        CRITIC,
                        "Triggers",
                        List.of(),
                        List.of(new CurateItems.Merge(List.of("Client feedback emails", "nope"), "x")),
                        "r")));
        assertEquals(Reason.NOT_FOUND, r.reason());
        assertTrue(r.message().contains("'nope'"), r.message());
    }

    @Test
    void replay_isByteIdentical() {
        List<Op> ops = List.of(
                new AppendItem(CRITIC, "evidence", ev("a", 1)), new AppendSection(CRITIC, "Evolution", "More."));
        ApplyResult r1 = Declarations.apply(
                TestSupport.grammar(), TestSupport.source(tree), ops, TestSupport.NOW, TestSupport.HASHER);
        ApplyResult r2 = Declarations.apply(
                TestSupport.grammar(), TestSupport.source(tree), ops, TestSupport.NOW, TestSupport.HASHER);
        assertEquals(r1, r2);
    }
}
