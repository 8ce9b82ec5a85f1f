package dev.memoryd.grammar.slices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class SliceValidatorTest {

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final String BASE = """
            v: "1"
            id: 01JBASE0000000000000000001
            title: Base
            summary: A minimal valid slice.
            body:
              type: markdown
            """;

    static String resource(String name) {
        try (InputStream in = SliceValidatorTest.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode yaml(String s) {
        try {
            return YAML.readTree(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** BASE with the YAML {@code change} (under no {@code slice:} key) merged over it. */
    static JsonNode base(String change) {
        ObjectNode b = (ObjectNode) yaml(BASE);
        if (!change.isBlank()) {
            merge(b, (ObjectNode) yaml(change));
        }
        return b;
    }

    static void merge(ObjectNode into, ObjectNode from) {
        for (Iterator<Map.Entry<String, JsonNode>> it = from.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isObject() && into.get(e.getKey()) instanceof ObjectNode o) {
                merge(o, (ObjectNode) e.getValue());
            } else {
                into.set(e.getKey(), e.getValue());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "file-structure",
                "auth-architecture",
                "large-payload",
                "contract-routing",
                "derived-summary",
                "decisions-log"
            })
    void everyFullExampleOfTheSpec_validatesClean(String name) {
        SliceFile f = SliceFile.parse(resource("slices/examples/" + name + ".slice"));
        assertTrue(f.slice().isPresent());
        assertEquals(List.of(), SliceValidator.validate(f));
    }

    @ParameterizedTest
    @ValueSource(strings = {"01", "03", "04", "06", "07", "08", "09", "10", "11", "12", "13", "14"})
    void everyFragmentOfTheSpec_overAMinimalSlice_validatesClean(String n) {
        JsonNode fragment = yaml(resource("slices/fragments/" + n + ".yaml")).get("slice");
        ObjectNode s = (ObjectNode) base("");
        merge(s, (ObjectNode) fragment);
        assertEquals(List.of(), SliceValidator.validate(s));
    }

    @ParameterizedTest
    @ValueSource(strings = {"02:slice.payload.hash", "05:slice.derived_from.hash"})
    void fragmentsWithTheElidedHashPlaceholder_reportOnlyTheHashFormat(String spec) {
        String[] p = spec.split(":");
        ObjectNode s = (ObjectNode) base("");
        merge(s, (ObjectNode)
                yaml(resource("slices/fragments/" + p[0] + ".yaml")).get("slice"));
        assertEquals(List.of(p[1] + "/format"), summary(SliceValidator.validate(s)));
    }

    @Test
    void minimalSlice_validatesClean() {
        assertEquals(List.of(), SliceValidator.validate(base("")));
    }

    static Stream<Arguments> failingCases() {
        return Stream.of(
                // required fields
                Arguments.of("missing v", remove("v"), "slice.v", "required"),
                Arguments.of("numeric v", "v: 1", "slice.v", "version"),
                Arguments.of("v 2", "v: \"2\"", "slice.v", "version"),
                Arguments.of("missing id", remove("id"), "slice.id", "required"),
                Arguments.of("blank title", "title: \"  \"", "slice.title", "required"),
                Arguments.of("missing summary", remove("summary"), "slice.summary", "required"),
                Arguments.of("missing body", remove("body"), "slice.body.type", "required"),
                Arguments.of("unknown body type", "body: {type: html}", "slice.body.type", "enum"),
                Arguments.of("id with a space", "id: not an id", "slice.id", "format"),
                Arguments.of("title a mapping", "title: {a: 1}", "slice.title", "type"),
                // kinds
                Arguments.of("unknown kind", "kind: archive", "slice.kind", "enum"),
                Arguments.of(
                        "pointer with a markdown body",
                        "kind: pointer\npayload: {uri: ./x.gz}",
                        "slice.body.type",
                        "pointer"),
                Arguments.of(
                        "pointer without payload", "kind: pointer\nbody: {type: none}", "slice.payload", "required"),
                Arguments.of(
                        "pointer payload without uri",
                        "kind: pointer\nbody: {type: none}\npayload: {size: 1}",
                        "slice.payload.uri",
                        "required"),
                Arguments.of(
                        "pointer bad hash",
                        "kind: pointer\nbody: {type: none}\npayload: {uri: ./x, hash: 'sha256:abc'}",
                        "slice.payload.hash",
                        "format"),
                Arguments.of(
                        "pointer md5 hash",
                        "kind: pointer\nbody: {type: none}\npayload: {uri: ./x, hash: 'md5:" + "0".repeat(32) + "'}",
                        "slice.payload.hash",
                        "format"),
                Arguments.of(
                        "pointer negative size",
                        "kind: pointer\nbody: {type: none}\npayload: {uri: ./x, size: -1}",
                        "slice.payload.size",
                        "range"),
                Arguments.of(
                        "pointer fractional size",
                        "kind: pointer\nbody: {type: none}\npayload: {uri: ./x, size: 1.5}",
                        "slice.payload.size",
                        "range"),
                Arguments.of("payload on a context slice", "payload: {uri: ./x}", "slice.payload", "kind-mismatch"),
                Arguments.of(
                        "unknown payload key",
                        "kind: pointer\nbody: {type: none}\npayload: {uri: ./x, bytes: 3}",
                        "slice.payload.bytes",
                        "unknown-field"),
                // body sub-objects
                Arguments.of(
                        "code without lang",
                        "body: {type: code, code: {extension: ts}}",
                        "slice.body.code.lang",
                        "required"),
                Arguments.of(
                        "code args not a list",
                        "body: {type: code, code: {lang: ts, args: --strict}}",
                        "slice.body.code.args",
                        "type"),
                Arguments.of(
                        "code sub-object on markdown", "body: {code: {lang: ts}}", "slice.body.code", "kind-mismatch"),
                Arguments.of(
                        "unknown code key",
                        "body: {type: code, code: {lang: ts, version: 5}}",
                        "slice.body.code.version",
                        "unknown-field"),
                Arguments.of(
                        "trace_id too short",
                        "body: {type: conversation, conversation: {trace_id: 4bf92f35}}",
                        "slice.body.conversation.trace_id",
                        "format"),
                Arguments.of(
                        "trace_id upper case",
                        "body: {type: conversation, conversation: {trace_id: 4BF92F3577B34DA6A3CE929D0E0E4736}}",
                        "slice.body.conversation.trace_id",
                        "format"),
                Arguments.of(
                        "span_id not hex",
                        "body: {type: conversation, conversation: {span_id: 00f067aa0ba902bz}}",
                        "slice.body.conversation.span_id",
                        "format"),
                Arguments.of(
                        "conversation format",
                        "body: {type: conversation, conversation: {format: chat}}",
                        "slice.body.conversation.format",
                        "enum"),
                Arguments.of(
                        "participants not a list",
                        "body: {type: conversation, conversation: {participants: user}}",
                        "slice.body.conversation.participants",
                        "type"),
                Arguments.of(
                        "includes_tool_calls not boolean",
                        "body: {type: conversation, conversation: {includes_tool_calls: maybe}}",
                        "slice.body.conversation.includes_tool_calls",
                        "type"),
                Arguments.of("unknown body key", "body: {colour: red}", "slice.body.colour", "unknown-field"),
                // contract
                Arguments.of("write mode", "contract: {write: overwrite}", "slice.contract.write", "enum"),
                Arguments.of("overflow mode", "contract: {overflow: truncate}", "slice.contract.overflow", "enum"),
                Arguments.of("exclude not a list", "contract: {exclude: notes}", "slice.contract.exclude", "type"),
                Arguments.of(
                        "exclude item a mapping", "contract: {exclude: [{a: 1}]}", "slice.contract.exclude[0]", "type"),
                Arguments.of("purpose a list", "contract: {purpose: [a]}", "slice.contract.purpose", "type"),
                Arguments.of("unknown contract key", "contract: {routes: x}", "slice.contract.routes", "unknown-field"),
                Arguments.of("contract a string", "contract: append", "slice.contract", "type"),
                // links
                Arguments.of("links a mapping", "links: {rel: parent}", "slice.links", "type"),
                Arguments.of("unknown rel", "links: [{rel: likes, to: 01JX}]", "slice.links[0].rel", "enum"),
                Arguments.of("missing rel", "links: [{to: 01JX}]", "slice.links[0].rel", "required"),
                Arguments.of("missing to", "links: [{rel: parent}]", "slice.links[0].to", "required"),
                Arguments.of(
                        "absolute path target",
                        "links: [{rel: parent, to: 01JX}, {rel: parent, to: /etc/x.slice}]",
                        "slice.links[1].to",
                        "format"),
                Arguments.of(
                        "url target",
                        "links: [{rel: see_also, to: 'https://x.example/a'}]",
                        "slice.links[0].to",
                        "format"),
                Arguments.of(
                        "unknown link key",
                        "links: [{rel: parent, to: 01JX, weight: 2}]",
                        "slice.links[0].weight",
                        "unknown-field"),
                Arguments.of("link a string", "links: [01JX]", "slice.links[0]", "type"),
                // derived_from
                Arguments.of(
                        "derived_from without hash", "derived_from: {id: 01JX}", "slice.derived_from.hash", "required"),
                Arguments.of(
                        "derived_from without id",
                        "derived_from: {hash: 'sha256:" + "a".repeat(64) + "'}",
                        "slice.derived_from.id",
                        "required"),
                Arguments.of(
                        "derived_from bad id",
                        "derived_from: {id: '../x', hash: 'sha256:" + "a".repeat(64) + "'}",
                        "slice.derived_from.id",
                        "format"),
                Arguments.of(
                        "derived_from hash too short",
                        "derived_from: {id: 01JX, hash: 'sha256:" + "a".repeat(63) + "'}",
                        "slice.derived_from.hash",
                        "format"),
                // meta and unknown
                Arguments.of("meta a list", "meta: [a]", "slice.meta", "type"),
                Arguments.of("unknown slice key", "contarct: {write: append}", "slice.contarct", "unknown-field"));
    }

    private static String remove(String key) {
        return "~remove:" + key;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failingCases")
    void eachRule_reportsExactlyTheOffendingFieldPath(String name, String change, String path, String rule) {
        JsonNode s;
        if (change.startsWith("~remove:")) {
            s = base("");
            ((ObjectNode) s).remove(change.substring("~remove:".length()));
        } else {
            s = base(change);
        }
        assertEquals(List.of(path + "/" + rule), summary(SliceValidator.validate(s)), name);
    }

    @Test
    void validPointerWithWriteError_andEveryRelName_andRelativePathTargets_validateClean() {
        StringBuilder links = new StringBuilder("links:\n");
        for (String rel : Relations.names()) {
            links.append("  - {rel: ").append(rel).append(", to: 01JX}\n");
        }
        links.append(
                "  - {rel: routes_to, to: ../sibling/file.slice, label: x}\n  - {rel: routes_to, to: ./meetings/}\n");
        JsonNode s = base("kind: pointer\nbody: {type: none}\npayload: {uri: ./p.gz, hash: 'sha256:" + "0".repeat(64)
                + "', size: 0}\ncontract: {write: error, overflow: error}\nmeta: {anything: [1, {deep: true}]}\n"
                + links);
        assertEquals(List.of(), SliceValidator.validate(s));
    }

    @Test
    void everyWriteAndOverflowModeOfTheSpec_isAccepted() {
        for (String w : List.of("append", "replace", "supersede", "error")) {
            for (String o : List.of("split", "summarize", "archive", "error")) {
                assertEquals(
                        List.of(),
                        SliceValidator.validate(base("contract: {write: " + w + ", overflow: " + o + "}")),
                        w + "/" + o);
            }
        }
    }

    @Test
    void fullConversationBody_validatesClean() {
        assertEquals(List.of(), SliceValidator.validate(base("""
                body:
                  type: conversation
                  conversation:
                    participants: [user, assistant, tool_call, tool_result]
                    agent_id: claude-3-opus
                    session_id: sess_abc123
                    trace_id: "4bf92f3577b34da6a3ce929d0e0e4736"
                    span_id: "00f067aa0ba902b7"
                    format: compacted
                    includes_tool_calls: true
                    includes_compaction: false
                """)));
    }

    @Test
    void pointerFileWithABody_isReportedAtBody() {
        String text = resource("slices/examples/large-payload.slice") + "{\"leaked\": true}\n";
        assertEquals(List.of("body/pointer"), summary(SliceValidator.validate(SliceFile.parse(text))));
    }

    @Test
    void jsonlFileWithABadRow_isReportedAtItsLine() {
        String text = resource("slices/examples/decisions-log.slice")
                + "{\"_meta\":{\"id\":\"01JROW00000000000000002\",\"created_at\":\"2026-02-02T00:00:00Z\"}}\n";
        assertEquals(List.of("body:4._meta.id/body-row"), summary(SliceValidator.validate(SliceFile.parse(text))));
    }

    @Test
    void conversationFileWithANonJsonLine_isReportedAtItsLine() {
        String text =
                "---\nslice:\n  v: \"1\"\n  id: 01JC\n  title: t\n  summary: s\n  body:\n    type: conversation\n---\n"
                        + "{\"role\": \"user\", \"content\": \"hi\"}\nnot json\n";
        assertEquals(List.of("body:2/body-row"), summary(SliceValidator.validate(SliceFile.parse(text))));
    }

    @Test
    void fileWithoutFrontmatterOrSliceMapping_reportsFrontmatter() {
        assertEquals(
                List.of("slice/frontmatter"), summary(SliceValidator.validate(SliceFile.parse("# just markdown\n"))));
        assertEquals(
                List.of("slice/frontmatter"),
                summary(SliceValidator.validate(SliceFile.parse("---\nother: 1\n---\n"))));
        assertEquals(
                List.of("slice/frontmatter"),
                summary(SliceValidator.validate(SliceFile.parse("---\nslice: [\n---\n"))));
        assertEquals(
                List.of("slice/frontmatter"),
                summary(SliceValidator.validate(SliceFile.parse("---\nslice:\n  v: \"1\"\n"))));
    }

    @Test
    void nullOrScalarSlice_isReportedAtSlice() {
        assertEquals(List.of("slice/required"), summary(SliceValidator.validate((JsonNode) null)));
        assertEquals(List.of("slice/type"), summary(SliceValidator.validate(yaml("a"))));
    }

    @Test
    void problemsNameFieldsNotValuesOnly_andMessagesMentionThePath() {
        List<SliceProblem> ps = SliceValidator.validate(base("contract: {write: overwrite}"));
        assertTrue(ps.get(0).message().contains("slice.contract.write"), ps::toString);
        assertFalse(ps.get(0).message().isBlank());
    }

    static List<String> summary(List<SliceProblem> ps) {
        return ps.stream().map(p -> p.fieldPath() + "/" + p.rule()).toList();
    }
}
