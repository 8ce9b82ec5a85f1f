package dev.memoryd.daemon.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memoryd.grammar.LintProblem;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.human.HumanEdits;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The exact JSON the ledger records for a human's source ({@code payload.human}) and for a provenance. */
class PayloadSourcesTest {
    private static final RepoPath PATH = RepoPath.of("users/alice/profile.md");
    private static final HumanEdits.Breaks BREAKS = new HumanEdits.Breaks(
            "lint",
            "a heading is missing",
            List.of(new LintProblem("users/alice/profile.md", 3, "required-section", "no Goals")));

    private static String human(HumanSource source) {
        return HumanCapture.flagged(PATH, "d1", BREAKS, "text", source)
                .payload()
                .get("human")
                .toString();
    }

    @Test
    void eachHumanSource_isWrittenWithItsNameFirst_thenItsOwnMembers() {
        assertEquals("{\"source\":\"work_tree\"}", human(HumanSource.WorkTree.ON_DISK));
        assertEquals(
                "{\"source\":\"work_tree\",\"kept\":\".memoryd/tampered/x.1\"}",
                human(new HumanSource.WorkTree(".memoryd/tampered/x.1")));
        assertEquals(
                "{\"source\":\"commit\",\"commits\":[{\"id\":\"abc\",\"author\":\"Ann <ann@example.com>\","
                        + "\"date\":\"2026-01-01T00:00:00Z\",\"subject\":\"fix\"}]}",
                human(new HumanSource.Commits(List.of(
                        new HumanSource.Commit("abc", "Ann <ann@example.com>", "2026-01-01T00:00:00Z", "fix")))));
        assertEquals("{\"source\":\"commit\",\"commits\":[]}", human(new HumanSource.Commits(List.of())));
        assertEquals(
                "{\"source\":\"git_history\",\"repo\":\".\",\"commits_total\":3,\"commits\":[{\"id\":\"abc\","
                        + "\"author\":\"Ann <ann@example.com>\",\"date\":\"2026-01-01T00:00:00Z\",\"subject\":\"fix\"}]}",
                human(new HumanSource.GitHistory(
                        ".",
                        3,
                        List.of(new HumanSource.Commit(
                                "abc", "Ann <ann@example.com>", "2026-01-01T00:00:00Z", "fix")))));
        assertEquals("{\"source\":\"replay_onto_latest\"}", human(new HumanSource.ReplayOntoLatest()));
        assertEquals("{\"source\":\"drift_resolution\"}", human(new HumanSource.DriftResolution()));
    }

    @Test
    void driftFlagged_payload_keepsItsMemberOrder() {
        assertEquals(
                "{\"drift\":{\"id\":\"d1\",\"kind\":\"lint\",\"reason\":\"a heading is missing\",\"text\":\"text\","
                        + "\"problems\":[{\"line\":3,\"rule\":\"required-section\",\"message\":\"no Goals\"}]},"
                        + "\"human\":{\"source\":\"work_tree\"}}",
                HumanCapture.flagged(PATH, "d1", BREAKS, "text", HumanSource.WorkTree.ON_DISK)
                        .payload()
                        .toString());
    }

    @Test
    void humanEdit_ofTheWholeFile_recordsItsSourceFirst() {
        List<Mutation.EventSpec> events = HumanCapture.editEvents(
                PATH, new HumanEdits.WholeFile("new\n", Set.of("b", "a")), new HumanSource.DriftResolution());
        assertEquals(
                "{\"human\":{\"source\":\"drift_resolution\"},\"whole_file\":true,\"text\":\"new\\n\","
                        + "\"changed\":[\"a\",\"b\"]}",
                events.get(0).payload().toString());
    }

    @Test
    void driftResolved_payload_writesTheNoteThenTheDismissedTextsHash_whenGiven() {
        assertEquals(
                "{\"drift\":{\"id\":\"d1\",\"resolution\":\"dismissed\",\"note\":\"ok\",\"text_sha256\":\"absent\"}}",
                HumanCapture.resolved(PATH, "d1", "dismissed", "ok", "absent")
                        .payload()
                        .toString());
        assertEquals(
                "{\"drift\":{\"id\":\"d1\",\"resolution\":\"restored\"}}",
                HumanCapture.resolved(PATH, "d1", "restored", null).payload().toString());
    }

    @Test
    void withHuman_addsTheSourceAfterTheDraftsOwnMembers_andLeavesTheDraftAsItWas() {
        Mutation.EventSpec draft = HumanCapture.resolved(PATH, "d1", "restored", null);
        Mutation.EventSpec with = HumanCapture.withHuman(draft, new HumanSource.DriftResolution());
        assertEquals(
                "{\"drift\":{\"id\":\"d1\",\"resolution\":\"restored\"},\"human\":{\"source\":\"drift_resolution\"}}",
                with.payload().toString());
        assertEquals(
                "{\"drift\":{\"id\":\"d1\",\"resolution\":\"restored\"}}",
                draft.payload().toString());
        assertEquals(draft.summary(), with.summary());
    }

    @Test
    void provenance_leavesAbsentMembersOut_andWritesAnIntegralConfidenceAsAnInteger() {
        assertEquals(
                "{\"agent\":\"a\"}",
                ProvenanceJson.of(new Provenance("a", null, null, null, null)).toString());
        assertEquals(
                "{\"agent\":\"a\",\"session\":\"s\",\"source\":\"inference\",\"confidence\":1,\"context\":\"why\"}",
                ProvenanceJson.of(new Provenance("a", "s", "inference", 1.0, "why"))
                        .toString());
        assertEquals(
                "{\"agent\":\"a\",\"confidence\":0.25}",
                ProvenanceJson.of(new Provenance("a", null, null, 0.25, null)).toString());
    }

    @Test
    void aCommitWithoutItsSubject_isRefusedWhenBuilt() {
        assertThrows(
                NullPointerException.class, () -> new HumanSource.Commit("abc", "Ann", "2026-01-01T00:00:00Z", null));
    }
}
