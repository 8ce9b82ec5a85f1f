package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OpCodecTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static OpParse parse(String json) throws Exception {
        return OpCodec.parse(JSON.readTree(json));
    }

    private static OpParse.Invalid invalid(String json) throws Exception {
        return assertInstanceOf(OpParse.Invalid.class, parse(json));
    }

    @Test
    void everyOp_roundTripsThroughJson() {
        RepoPath p = TestSupport.CRITIC;
        List<Op> ops = List.of(
                new CreateEntity(
                        "sam",
                        "relationship",
                        "r",
                        "T",
                        List.of("a", "b"),
                        List.of("01JC7Z00000000000000000001", "01JC7Z00000000000000000002"),
                        "h",
                        List.of("ev:x"),
                        "why"),
                new CreateEntity("sam", "user", null, "Sam", List.of(), List.of()),
                new ReplaceSection(p, "Role", "x\ny", "abc", List.of("ev:1", "ev:2"), null),
                new AppendSection(p, "role", "para"),
                new AppendItem(p, "evidence", "\"q\" ev:1", null, List.of(), "over"),
                new CurateItems(
                        p, "Triggers", List.of("a"), List.of(new CurateItems.Merge(List.of("b", "c"), "bc")), "r"),
                new CurateItems(p, "Triggers", List.of(), List.of(), "r"),
                new TombstoneSection(p, "Open Questions", "done"));
        for (Op op : ops) {
            assertEquals(new OpParse.Ok(op), OpCodec.parse(OpCodec.toJson(op)), op.toString());
        }
    }

    @Test
    void unknownOp_isInvalidOpListingTheValidOnes() throws Exception {
        OpParse.Invalid i = invalid("{\"op\":\"frobnicate\"}");
        assertEquals("invalid_op", i.reason());
        assertEquals("op", i.fieldPath());
        assertTrue(
                i.message().contains("unknown op 'frobnicate'") && i.message().contains("replace_section"),
                i.message());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "delete_file",
                "delete_entity",
                "remove_section",
                "rename_section",
                "edit_frontmatter",
                "rename_field",
                "set_id",
                "remove_anchor"
            })
    void knownDangerousOp_isProhibited(String name) throws Exception {
        assertEquals(
                "prohibited",
                invalid("{\"op\":\"" + name + "\",\"path\":\"users/sam/overview.md\"}")
                        .reason());
    }

    @Test
    void missingField_isInvalidOpNamingIt() throws Exception {
        OpParse.Invalid i =
                invalid("{\"op\":\"replace_section\",\"path\":\"users/sam/overview.md\",\"section\":\"Identity\"}");
        assertEquals(new OpParse.Invalid("invalid_op", "content", "missing required field 'content'"), i);
    }

    @Test
    void mistypedField_isInvalidOpNamingIt() throws Exception {
        assertEquals(
                "section",
                invalid("{\"op\":\"append_item\",\"path\":\"a.md\",\"section\":3,\"item\":\"x\"}")
                        .fieldPath());
        assertEquals(
                "evidence_refs[1]",
                invalid("{\"op\":\"append_item\",\"path\":\"a.md\",\"section\":\"s\",\"item\":\"x\","
                                + "\"evidence_refs\":[\"a\",2]}")
                        .fieldPath());
        assertEquals(
                "merge[0].into",
                invalid("{\"op\":\"curate_items\",\"path\":\"a.md\",\"section\":\"s\",\"reason\":\"r\","
                                + "\"merge\":[{\"items\":[\"a\",\"b\"]}]}")
                        .fieldPath());
    }

    @Test
    void unknownExtraField_isInvalidOp() throws Exception {
        OpParse.Invalid i = invalid(
                "{\"op\":\"tombstone_section\",\"path\":\"a.md\",\"section\":\"s\",\"reason\":\"r\",\"force\":true}");
        assertEquals("force", i.fieldPath());
        assertEquals("invalid_op", i.reason());
    }

    @Test
    void hostilePath_isInvalidOpOnPath() throws Exception {
        OpParse.Invalid i =
                invalid("{\"op\":\"append_item\",\"path\":\"../etc/passwd\",\"section\":\"s\",\"item\":\"x\"}");
        assertEquals("path", i.fieldPath());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\\u0000", "\\u0001", "\\u001b", "\\u007f", "\\r", "\\ud800", "\\udfff", "\\udc00\\ud800"})
    void controlCharacterOrLoneSurrogateInText_isInvalidOpNamingTheField(String bad) throws Exception {
        OpParse.Invalid item =
                invalid("{\"op\":\"append_item\",\"path\":\"a.md\",\"section\":\"s\",\"item\":\"x" + bad + "y\"}");
        assertEquals("invalid_op", item.reason());
        assertEquals("item", item.fieldPath());
        assertTrue(item.message().contains("index 1"), item.message());
        assertEquals(
                "content",
                invalid("{\"op\":\"replace_section\",\"path\":\"a.md\",\"section\":\"s\",\"content\":\"" + bad + "\"}")
                        .fieldPath());
        assertEquals(
                "section",
                invalid("{\"op\":\"replace_section\",\"path\":\"a.md\",\"section\":\"s" + bad + "\",\"content\":\"c\"}")
                        .fieldPath());
        assertEquals(
                "merge[0].into",
                invalid("{\"op\":\"curate_items\",\"path\":\"a.md\",\"section\":\"s\",\"reason\":\"r\","
                                + "\"merge\":[{\"items\":[\"a\"],\"into\":\"" + bad + "\"}]}")
                        .fieldPath());
        assertEquals(
                "remove[1]",
                invalid("{\"op\":\"curate_items\",\"path\":\"a.md\",\"section\":\"s\",\"reason\":\"r\","
                                + "\"remove\":[\"a\",\"" + bad + "\"]}")
                        .fieldPath());
        assertEquals(
                "title",
                invalid("{\"op\":\"create_entity\",\"user_id\":\"sam\",\"entity_type\":\"part\",\"title\":\"" + bad
                                + "\"}")
                        .fieldPath());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\\u0000", "\\u0001", "\\u001b", "\\u007f"})
    void aRecordedOpWithAControlCharacter_isReadBack_soReplayRedoesWhatWasWritten(String bad) throws Exception {
        String json = "{\"op\":\"append_item\",\"path\":\"a.md\",\"section\":\"s\",\"item\":\"x" + bad + "y\"}";
        assertInstanceOf(OpParse.Invalid.class, parse(json), "a client may not send it");
        OpParse recorded = OpCodec.parseRecorded(JSON.readTree(json));
        AppendItem op =
                (AppendItem) assertInstanceOf(OpParse.Ok.class, recorded).op();
        assertEquals("x" + JSON.readTree("\"" + bad + "\"").asText() + "y", op.item());
        assertEquals(recorded, OpCodec.parseRecorded(OpCodec.toJson(op)));
    }

    @Test
    void aRecordedOpWithALoneSurrogate_isStillRefused() throws Exception {
        OpParse r = OpCodec.parseRecorded(
                JSON.readTree("{\"op\":\"append_item\",\"path\":\"a.md\",\"section\":\"s\",\"item\":\"x\\ud800\"}"));
        assertEquals("item", assertInstanceOf(OpParse.Invalid.class, r).fieldPath());
    }

    @Test
    void tabNewlineAndCrlfInText_areAccepted() throws Exception {
        OpParse r = parse(
                "{\"op\":\"replace_section\",\"path\":\"a.md\",\"section\":\"s\",\"content\":\"a\\tb\\r\\nc\\nd \\ud83d\\ude00\"}");
        assertEquals(
                "a\tb\r\nc\nd \ud83d\ude00",
                ((ReplaceSection) assertInstanceOf(OpParse.Ok.class, r).op()).content());
    }

    @Test
    void nonObject_isInvalidOp() throws Exception {
        assertEquals("invalid_op", invalid("[1]").reason());
        assertEquals("op", invalid("{}").fieldPath());
    }
}
