package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Extensions → Core promotions and tunable caps (file grammar §13) over a real daemon's socket:
 * proposals, one-commit migrations, remembered rejections, caps held on the next write, and
 * replay byte for byte across grammar versions.
 */
class PromotionsTest extends ServedRootTest {
    static final String MAINTAINER = "human:Mia Maintainer <mia@example.com>";
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    static final String YOUNG = "users/sam/parts/young-one/profile.md";
    static final String PLANNER = "users/sam/parts/planner/profile.md";
    static final String GUARD = "users/sam/parts/guard/profile.md";

    private String reason(JsonNode reply) {
        assertTrue(reply.has("error"), reply.toString());
        return reply.at("/error/data/reason").asText();
    }

    private void createPart(String id) throws Exception {
        ok(
                "write",
                "{\"rationale\":\"new part\",\"ops\":[{\"op\":\"create_entity\",\"user_id\":\"sam\","
                        + "\"entity_type\":\"part\",\"entity_id\":\"" + id + "\",\"title\":\"" + id + "\"}]}");
    }

    /** A human adds an H3 subsection at the end of the file (inside Extensions, the last section) and it is captured. */
    private void addSubsection(String path, String heading, String body) throws Exception {
        String t = root.file(path);
        Files.writeString(
                root.dir.resolve(path), t + (t.endsWith("\n\n") ? "" : "\n") + "### " + heading + "\n\n" + body + "\n");
        assertTrue(ok("capture", null).path("captured").asBoolean());
    }

    private List<String> candidates(String params) throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode c : ok("promotions.list", params).path("candidates")) {
            out.add(c.path("file_type").asText() + ":" + c.path("heading").asText() + ":"
                    + c.path("files").asInt());
        }
        return out;
    }

    private void assertReplayVerifies() throws Exception {
        JsonNode r = ok("replay", "{\"verify\":true}");
        assertTrue(r.path("ok").asBoolean(), r.toString());
    }

    private int commits() throws Exception {
        return Integer.parseInt(root.git("rev-list", "--count", "HEAD").strip());
    }

    @Test
    void aSubsectionRecurringInThreeParts_isProposed_andAcceptingMigratesEveryPartInOneCommit() throws Exception {
        createPart("planner");
        createPart("guard");
        assertTrue(root.file(CRITIC).contains("### Voice notes"), "the example's inner critic has it already");
        addSubsection(YOUNG, "Voice notes", "Whispers; goes quiet when rushed.");
        assertEquals(List.of(), candidates("{}"), "two files are not enough");
        addSubsection(PLANNER, "Voice notes", "Lists, always lists.");
        addSubsection(PLANNER, "Rituals", "Morning review.");
        assertEquals(List.of("part:Voice notes:3"), candidates("{}"));
        assertEquals(
                List.of("part:Rituals:1", "part:Voice notes:3"),
                candidates("{\"min_files\":1,\"file_type\":\"part\"}").stream()
                        .sorted()
                        .toList());
        assertEquals(List.of(), candidates("{\"min_files\":4}"));
        assertEquals("not_found", reason(root.call("promotions.list", "{\"file_type\":\"pets\"}")));

        int before = commits();
        JsonNode r = ok(
                "promotions.accept",
                "{\"file_type\":\"part\",\"heading\":\"Voice notes\",\"actor\":\"" + MAINTAINER
                        + "\",\"rationale\":\"every part has a voice\"}");
        assertTrue(r.path("changed").asBoolean(), r.toString());
        assertEquals(before + 1, commits(), "one declaration, one commit");
        assertEquals(r.path("commit").asText(), root.git("rev-parse", "HEAD").strip());
        // the grammar file and the four part files (three moved, one given the empty section)
        assertEquals(5, r.path("events").size(), r.toString());
        String changed = root.git("show", "--name-only", "--format=", "HEAD");
        for (String p : List.of(CRITIC, YOUNG, PLANNER, GUARD, "templates/grammar.yaml", "templates/part.md")) {
            assertTrue(changed.contains(p), changed);
        }

        String young = root.file(YOUNG);
        assertTrue(
                young.contains(
                        "## Voice notes\n<!-- @anchor: voice-notes v1 -->\n\nWhispers; goes quiet when rushed.\n\n"
                                + "## Open Questions\n"),
                young);
        assertFalse(young.contains("### Voice notes"), young);
        String guard = root.file(GUARD);
        assertTrue(
                guard.contains("## Evolution\n<!-- @anchor: evolution v1 -->\n\n## Voice notes\n"
                        + "<!-- @anchor: voice-notes v1 -->\n\n## Open Questions\n"),
                guard);
        assertTrue(
                root.file(PLANNER).contains("### Rituals\n\nMorning review.\n"),
                "other subsections stay in Extensions");
        assertTrue(root.file("templates/grammar.yaml").contains("version: 2\n"));
        assertEquals(
                0, ok("lint", null).path("problems").size(), ok("lint", null).toString());
        assertReplayVerifies();

        // the new section is a core section of the grammar in force: writable, and in new parts
        ok(
                "write",
                "{\"rationale\":\"heard it\",\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + GUARD
                        + "\",\"section\":\"voice-notes\",\"content\":\"Low and steady.\"}]}");
        assertEquals(
                "prohibited",
                reason(root.call(
                        "write",
                        "{\"rationale\":\"drop it\",\"ops\":[{\"op\":\"tombstone_section\"," + "\"path\":\"" + GUARD
                                + "\",\"section\":\"Voice notes\",\"reason\":\"no\"}]}")));
        createPart("scout");
        assertTrue(root.file("users/sam/parts/scout/profile.md")
                .contains("## Voice notes\n<!-- @anchor: voice-notes v1 -->\n"));
        assertEquals(List.of(), candidates("{}"), "a promoted heading is no longer proposed");
        assertEquals(0, ok("lint", null).path("problems").size());
        assertReplayVerifies();
        assertTrue(PayloadLines.assertTyped(root.dir) > 0, "every line recorded, read back typed, parses");
    }

    @Test
    void aRejectedPromotion_isRecorded_andNotProposedAgain() throws Exception {
        createPart("planner");
        for (String p : List.of(CRITIC, YOUNG, PLANNER)) {
            addSubsection(p, "Rituals", "Some ritual.");
        }
        assertTrue(candidates("{}").contains("part:Rituals:3"));
        String before = root.file(CRITIC);
        JsonNode r = ok(
                "promotions.reject",
                "{\"file_type\":\"part\",\"heading\":\"Rituals\",\"actor\":\"" + MAINTAINER + "\"}");
        assertTrue(r.path("changed").asBoolean());
        assertEquals(before, root.file(CRITIC), "a rejection changes no memory file");
        assertFalse(candidates("{}").contains("part:Rituals:3"));
        assertTrue(root.file("templates/grammar.yaml")
                .contains("rejected_promotions:\n  - {file_type: \"part\", heading: \"Rituals\"}\n"));
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "promotions.reject",
                        "{\"file_type\":\"part\",\"heading\":\"Rituals\"," + "\"actor\":\"" + MAINTAINER + "\"}")));
        JsonNode event = ok("resolve", "{\"token\":\"" + r.at("/events/0/token").asText() + "\"}");
        assertEquals("grammar_change", event.path("op").asText());
        assertEquals(MAINTAINER, event.path("actor").asText());
        assertReplayVerifies();
    }

    @Test
    void setCap_holdsTheNextWriteToTheNewCap_andReplays() throws Exception {
        String trig = "{\"rationale\":\"noticed\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + YOUNG
                + "\",\"section\":\"Triggers\",\"item\":\"ITEM\"}]}";
        ok("write", trig.replace("ITEM", "loud voices"));
        JsonNode r = ok(
                "grammar.set_cap",
                "{\"file_type\":\"part\",\"section\":\"triggers\",\"cap\":\"max_items\",\"value\":2," + "\"actor\":\""
                        + MAINTAINER + "\",\"rationale\":\"keep triggers short\"}");
        assertTrue(r.path("changed").asBoolean());
        assertTrue(root.file("templates/grammar.yaml")
                .contains("anchor: \"triggers\", kind: list, core: true, max_items: 2}"));
        int items =
                root.file(YOUNG).split("## Needs")[0].split("## Triggers")[1].split("\n- ", -1).length - 1;
        for (int i = items; i < 2; i++) {
            ok("write", trig.replace("ITEM", "item " + i));
        }
        assertEquals("cap_exceeded", reason(root.call("write", trig.replace("ITEM", "one too many"))));
        ok(
                "write",
                trig.replace("ITEM", "one too many")
                        .replace("\"item\":", "\"override_rationale\":\"needed now\",\"item\":"));
        assertReplayVerifies();
    }

    @Test
    void theCommandLine_proposesAcceptsAndSetsCaps_andReplayWithoutADaemonReproducesEveryFile() throws Exception {
        createPart("planner");
        addSubsection(YOUNG, "Voice notes", "Whispers.");
        addSubsection(PLANNER, "Voice notes", "Lists.");
        Cli.Run list = Cli.run(root.cliArgs("promotions", "list"));
        assertEquals(0, list.code(), list.toString());
        assertTrue(list.out().contains("part  \"Voice notes\"  in 3 files: " + CRITIC), list.toString());
        Cli.Run agent = Cli.run(root.cliArgs(
                "promotions", "accept", "--file-type", "part", "--heading", "Voice notes", "--actor", "agent-7"));
        assertEquals(1, agent.code(), agent.toString());
        assertTrue(agent.err().contains("prohibited") || agent.err().contains("maintainer"), agent.toString());
        Cli.Run accept = Cli.run(root.cliArgs(
                "promotions",
                "accept",
                "--file-type",
                "part",
                "--heading",
                "Voice notes",
                "--actor",
                MAINTAINER,
                "--json"));
        assertEquals(0, accept.code(), accept.toString());
        assertTrue(accept.out().contains("\"changed\":true"), accept.toString());
        Cli.Run cap = Cli.run(root.cliArgs(
                "grammar",
                "set-cap",
                "--file-type",
                "part",
                "--section",
                "Voice notes",
                "--cap",
                "max_words",
                "--value",
                "50",
                "--actor",
                MAINTAINER));
        assertEquals(0, cap.code(), cap.toString());
        assertTrue(root.file("templates/grammar.yaml").contains("version: 3\n"));
        assertTrue(root.file("templates/grammar.yaml")
                .contains("anchor: \"voice-notes\", kind: narrative, core: true, max_words: 50}"));
        root.close();
        Cli.Run replay = Cli.run(root.cliArgs("replay", "--verify"));
        assertEquals(0, replay.code(), replay.toString());
        assertTrue(replay.out().contains("replay ok"), replay.toString());
        Cli.Run lint = Cli.run(root.cliArgs("lint"));
        assertEquals(0, lint.code(), lint.toString());
    }

    @Test
    void refusals_namePrecisely_whatIsWrong_andChangeNothing() throws Exception {
        String head = root.git("rev-parse", "HEAD").strip();
        String accept = "{\"file_type\":\"TYPE\",\"heading\":\"HEADING\",\"actor\":\"ACTOR\"}";
        assertEquals(
                "prohibited",
                reason(root.call(
                        "promotions.accept",
                        accept.replace("TYPE", "part")
                                .replace("HEADING", "Voice notes")
                                .replace("ACTOR", "agent-7"))));
        assertEquals(
                "not_found",
                reason(root.call(
                        "promotions.accept",
                        accept.replace("TYPE", "pets")
                                .replace("HEADING", "Voice notes")
                                .replace("ACTOR", MAINTAINER))));
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "promotions.accept",
                        accept.replace("TYPE", "part")
                                .replace("HEADING", "Role")
                                .replace("ACTOR", MAINTAINER))));
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "promotions.accept",
                        accept.replace("TYPE", "notes")
                                .replace("HEADING", "Voice notes")
                                .replace("ACTOR", MAINTAINER))));
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "promotions.accept",
                        "{\"file_type\":\"part\",\"heading\":\"X\"," + "\"kind\":\"table\",\"actor\":\"" + MAINTAINER
                                + "\"}")));
        assertEquals("unknown_section", setCapReason("Nope", "max_items", 3));
        assertEquals("invalid_request", setCapReason("Role", "max_items", 3));
        assertEquals("invalid_request", setCapReason("Role", "max_words", 0));
        assertEquals("invalid_request", setCapReason("Role", "max_lines", 3));
        assertEquals("invalid_request", reason(root.call("promotions.list", "{\"min_files\":0}")));
        assertEquals(head, root.git("rev-parse", "HEAD").strip());
        assertFalse(Files.exists(root.dir.resolve("templates/grammar.yaml")));
    }

    @Test
    void aBranchForkedAfterAGrammarChangeAndALock_replaysBothOnItsOwnWriter() throws Exception {
        ok(
                "grammar.set_cap",
                "{\"file_type\":\"part\",\"section\":\"triggers\",\"cap\":\"max_items\",\"value\":5," + "\"actor\":\""
                        + MAINTAINER + "\"}");
        ok("sections.lock", "{\"path\":\"" + CRITIC + "\",\"section\":\"Role\",\"actor\":\"" + MAINTAINER + "\"}");
        ok("branch.create", "{\"name\":\"feature\"}");
        ok(
                "write",
                "{\"rationale\":\"noticed\",\"branch\":\"feature\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + YOUNG
                        + "\",\"section\":\"Triggers\",\"item\":\"slammed doors\"}]}");
        dev.memoryd.daemon.write.WritePipeline feature = ((dev.memoryd.daemon.api.Outcome.Ok<
                                dev.memoryd.daemon.write.WritePipeline>)
                        root.daemon.service().branches().writer("feature"))
                .value();
        // the feature chain starts with a fork: its replay redoes main's lines up to it on the feature writer
        dev.memoryd.daemon.write.LedgerReplay.ReplayState st = feature.replayFromEmpty(n -> {});
        assertEquals(List.of(), st.halts());
        assertEquals(
                root.git("show", "feature:templates/grammar.yaml"),
                st.files().get(dev.memoryd.daemon.write.GrammarFiles.GRAMMAR));
        assertEquals(root.git("show", "feature:" + CRITIC), st.files().get(dev.memoryd.grammar.RepoPath.of(CRITIC)));
        assertEquals(root.git("show", "feature:" + YOUNG), st.files().get(dev.memoryd.grammar.RepoPath.of(YOUNG)));
    }

    @Test
    void theRootsMinFilesSetting_isTheThreshold_aRequestOverridesIt_andABadValueIsNamed() throws Exception {
        addSubsection(YOUNG, "Voice notes", "Whispers.");
        assertEquals(List.of(), candidates("{}"), "two files are below the default of three");
        root.close();
        Files.writeString(root.dir.resolve(RootSettings.FILE), "promotions: {min_files: 2}\n");
        root.serve();
        assertEquals(List.of("part:Voice notes:2"), candidates("{}"));
        assertEquals(2, ok("promotions.list", "{}").path("min_files").asInt());
        assertEquals(List.of(), candidates("{\"min_files\":3}"), "the request's own threshold wins");
        Cli.Run list = Cli.run(root.cliArgs("promotions", "list"));
        assertEquals(0, list.code(), list.toString());
        assertTrue(list.out().contains("part  \"Voice notes\"  in 2 files"), list.toString());
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(
                        IllegalArgumentException.class, () -> RootSettings.parse("promotions: {min_files: 0}\n"))
                .getMessage()
                .contains("'promotions.min_files'"));
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(
                        IllegalArgumentException.class, () -> RootSettings.parse("promotions: {min_file: 2}\n"))
                .getMessage()
                .contains("unknown setting 'promotions.min_file'"));
        assertEquals(
                dev.memoryd.daemon.promotions.Promotions.DEFAULT_MIN_FILES,
                RootSettings.parse("provenance: true\n").promotionMinFiles());
    }

    @Test
    void setKind_makesANarrativeSectionAList_inOneCommit_andRefusesAChangeThatWouldLeaveFilesLintDirty()
            throws Exception {
        String kind =
                "{\"file_type\":\"part\",\"section\":\"SECTION\",\"kind\":\"KIND\",\"actor\":\"" + MAINTAINER + "\"}";
        String before = root.file(YOUNG);
        int commits = commits();
        JsonNode r = ok("grammar.set_kind", kind.replace("SECTION", "Concerns").replace("KIND", "list"));
        assertTrue(r.path("changed").asBoolean(), r.toString());
        assertEquals(commits + 1, commits());
        assertEquals(before, root.file(YOUNG), "no memory file changes");
        assertTrue(
                root.file("templates/grammar.yaml")
                        .contains("{name: \"Concerns\", anchor: \"concerns\", kind: list, core: true}\n"),
                root.file("templates/grammar.yaml"));
        assertEquals(
                "grammar_change",
                ok("resolve", "{\"token\":\"" + r.at("/events/0/token").asText() + "\"}")
                        .path("op")
                        .asText());
        ok(
                "write",
                "{\"rationale\":\"noticed\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + YOUNG
                        + "\",\"section\":\"Concerns\",\"item\":\"being left behind\"}]}");
        assertTrue(root.file(YOUNG).contains("- being left behind\n"), "Concerns takes items now");
        assertEquals(0, ok("lint", null).path("problems").size());
        assertReplayVerifies();

        // Needs becoming narrative would cap it at 400 words: one part's Needs has more
        String words = String.join(" ", java.util.Collections.nCopies(110, "quiet"));
        for (int i = 0; i < 4; i++) {
            ok(
                    "write",
                    "{\"rationale\":\"heard\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + YOUNG
                            + "\",\"section\":\"Needs\",\"item\":\"need " + i + " " + words + "\"}]}");
        }
        String head = root.git("rev-parse", "HEAD").strip();
        String grammar = root.file("templates/grammar.yaml");
        JsonNode no =
                root.call("grammar.set_kind", kind.replace("SECTION", "Needs").replace("KIND", "narrative"));
        assertEquals("invalid_request", reason(no));
        assertEquals(1, no.at("/error/data/files").size(), no.toString());
        assertEquals(YOUNG, no.at("/error/data/files/0/path").asText(), no.toString());
        assertTrue(no.at("/error/data/files/0/problems/0").asText().contains("cap-words"), no.toString());
        assertTrue(no.at("/error/message").asText().contains(YOUNG), no.toString());
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "grammar.set_kind", kind.replace("SECTION", "Triggers").replace("KIND", "list"))));
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "grammar.set_kind", kind.replace("SECTION", "evidence").replace("KIND", "narrative"))));
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "grammar.set_kind",
                        kind.replace("SECTION", "Change Log").replace("KIND", "list"))));
        assertEquals(
                "invalid_request",
                reason(root.call(
                        "grammar.set_kind", kind.replace("SECTION", "Role").replace("KIND", "table"))));
        assertEquals(
                "unknown_section",
                reason(root.call(
                        "grammar.set_kind", kind.replace("SECTION", "Nope").replace("KIND", "list"))));
        assertEquals(
                "prohibited",
                reason(root.call(
                        "grammar.set_kind",
                        kind.replace("SECTION", "Role").replace("KIND", "list").replace(MAINTAINER, "agent-7"))));
        assertEquals(head, root.git("rev-parse", "HEAD").strip(), "a refusal changes nothing");
        assertEquals(grammar, root.file("templates/grammar.yaml"));

        Cli.Run back = Cli.run(root.cliArgs(
                "grammar",
                "set-kind",
                "--file-type",
                "part",
                "--section",
                "concerns",
                "--kind",
                "narrative",
                "--actor",
                MAINTAINER));
        assertEquals(0, back.code(), back.toString());
        assertTrue(root.file("templates/grammar.yaml")
                .contains("anchor: \"concerns\", kind: narrative, core: true, max_words: 400}"));
        Cli.Run dirty = Cli.run(root.cliArgs(
                "grammar",
                "set-kind",
                "--file-type",
                "part",
                "--section",
                "Needs",
                "--kind",
                "narrative",
                "--actor",
                MAINTAINER));
        assertEquals(1, dirty.code(), dirty.toString());
        assertTrue(dirty.err().contains("lint-dirty"), dirty.toString());
        assertReplayVerifies();
    }

    /** The refusal reason of a maintainer's {@code grammar.set_cap} on a part's section. */
    private String setCapReason(String section, String cap, int value) throws Exception {
        return reason(root.call(
                "grammar.set_cap",
                "{\"file_type\":\"part\",\"section\":\"" + section + "\",\"cap\":\"" + cap + "\",\"value\":" + value
                        + ",\"actor\":\"" + MAINTAINER + "\"}"));
    }
}
