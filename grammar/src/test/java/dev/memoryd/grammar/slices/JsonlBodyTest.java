package dev.memoryd.grammar.slices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.grammar.slices.Contract.Change;
import dev.memoryd.grammar.slices.Contract.WriteCheck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonlBodyTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-21T10:00:00Z");

    private static JsonNode json(String s) {
        try {
            return JSON.readTree(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String decisionsBody() {
        return SliceFile.parse(SliceValidatorTest.resource("slices/examples/decisions-log.slice"))
                .body();
    }

    private static List<String> ids(List<JsonNode> rows) {
        return rows.stream().map(r -> r.path("_meta").path("id").asText()).toList();
    }

    private static JsonlBody.Appended appended(JsonlBody.AppendResult r) {
        return assertInstanceOf(JsonlBody.Appended.class, r, r::toString);
    }

    private static List<String> rejected(JsonlBody.AppendResult r) {
        return SliceValidatorTest.summary(
                assertInstanceOf(JsonlBody.Rejected.class, r, r::toString).problems());
    }

    @Test
    void specsDecisionsLog_isValidAndRow3SupersedesRow1() {
        String body = decisionsBody();
        assertEquals(List.of(), JsonlBody.validate(body));
        assertEquals(3, JsonlBody.rows(body).size());
        assertEquals(List.of("01JROW00000000000000002", "01JROW00000000000000003"), ids(JsonlBody.activeRows(body)));
    }

    @Test
    void appendRow_addsOneCanonicalLineAndKeepsEveryExistingByte() {
        String body = decisionsBody();
        JsonNode row = json(
                "{\"text\":\"Use Kafka.\",\"_meta\":{\"id\":\"01JROW4\",\"created_at\":\"2026-03-01T00:00:00Z\"}}");
        JsonlBody.Appended a = appended(JsonlBody.appendRow(body, row, NOW));
        assertTrue(a.body().startsWith(body));
        assertEquals(body + a.line() + "\n", a.body());
        assertEquals(
                "{\"_meta\":{\"created_at\":\"2026-03-01T00:00:00Z\",\"id\":\"01JROW4\"},\"text\":\"Use Kafka.\"}",
                a.line());
        assertEquals(List.of(), JsonlBody.validate(a.body()));
    }

    @Test
    void appendRow_fillsAMissingCreatedAtFromNowWithoutTouchingTheCallersRow() {
        JsonNode row = json("{\"_meta\":{\"id\":\"r1\"},\"text\":\"x\"}");
        JsonlBody.Appended a = appended(JsonlBody.appendRow("", row, NOW));
        assertEquals("{\"_meta\":{\"created_at\":\"2026-11-21T10:00:00Z\",\"id\":\"r1\"},\"text\":\"x\"}\n", a.body());
        assertTrue(row.path("_meta").get("created_at") == null);
    }

    @Test
    void appendRow_addsANewlineToABodyThatLacksOne() {
        String body = "{\"_meta\":{\"id\":\"r1\",\"created_at\":\"2026-01-01T00:00:00Z\"}}";
        JsonlBody.Appended a = appended(JsonlBody.appendRow(body, json("{\"_meta\":{\"id\":\"r2\"}}"), NOW));
        assertEquals(2, JsonlBody.rows(a.body()).size());
        assertTrue(a.body().startsWith(body + "\n"));
    }

    @Test
    void appendRow_rejectsADuplicateId() {
        JsonNode row = json("{\"_meta\":{\"id\":\"01JROW00000000000000002\",\"created_at\":\"2026-03-01T00:00:00Z\"}}");
        assertEquals(List.of("body:4._meta.id/duplicate-id"), rejected(JsonlBody.appendRow(decisionsBody(), row, NOW)));
    }

    @Test
    void appendRow_rejectsSupersedingAnUnknownRow() {
        JsonNode row = json("{\"_meta\":{\"id\":\"r9\",\"supersedes\":[\"01JROW00000000000000002\",\"nope\"]}}");
        assertEquals(
                List.of("body:4._meta.supersedes[1]/unknown-supersedes"),
                rejected(JsonlBody.appendRow(decisionsBody(), row, NOW)));
    }

    @Test
    void appendRow_rejectsRowsWithoutIdOrWithABadTimestampOrNotObjects() {
        assertEquals(
                List.of("body:1._meta.id/required"), rejected(JsonlBody.appendRow("", json("{\"_meta\":{}}"), NOW)));
        assertEquals(
                List.of("body:1._meta/required"), rejected(JsonlBody.appendRow("", json("{\"text\":\"x\"}"), NOW)));
        assertEquals(
                List.of("body:1._meta.created_at/format"),
                rejected(
                        JsonlBody.appendRow("", json("{\"_meta\":{\"id\":\"a\",\"created_at\":\"yesterday\"}}"), NOW)));
        assertEquals(List.of("body:1/json"), rejected(JsonlBody.appendRow("", json("[1]"), NOW)));
        assertEquals(
                List.of("body:1._meta.confidence/range"),
                rejected(JsonlBody.appendRow("", json("{\"_meta\":{\"id\":\"a\",\"confidence\":1.5}}"), NOW)));
    }

    @Test
    void appendRow_refusesToBuildOnAnInvalidBody() {
        List<String> ps = rejected(JsonlBody.appendRow("not json\n", json("{\"_meta\":{\"id\":\"a\"}}"), NOW));
        assertEquals(List.of("body:1/body-invalid"), ps);
    }

    @Test
    void supersessionChain_activeRowIsTheNewest() {
        String body = "";
        body = appended(JsonlBody.appendRow(body, json("{\"_meta\":{\"id\":\"a\"},\"v\":1}"), NOW))
                .body();
        body = appended(JsonlBody.appendRow(
                        body, json("{\"_meta\":{\"id\":\"b\",\"supersedes\":[\"a\"]},\"v\":2}"), NOW))
                .body();
        body = appended(JsonlBody.appendRow(body, json("{\"_meta\":{\"id\":\"x\"}}"), NOW))
                .body();
        body = appended(JsonlBody.appendRow(
                        body, json("{\"_meta\":{\"id\":\"c\",\"supersedes\":[\"b\"]},\"v\":3}"), NOW))
                .body();
        assertEquals(List.of("x", "c"), ids(JsonlBody.activeRows(body)));
        assertEquals(4, JsonlBody.rows(body).size());
    }

    @Test
    void validate_reportsEveryBadRowAtItsLine() {
        String body = "{\"_meta\":{\"id\":\"a\",\"created_at\":\"2026-01-01T00:00:00Z\"}}\n\n"
                + "{\"_meta\":{\"id\":\"a\",\"created_at\":\"2026-01-01T00:00:00+02:00\"}}\n"
                + "{\"_meta\":{\"id\":\"b\",\"created_at\":\"2026-01-01\"}}\n"
                + "{\"a\":1,\"a\":2}\n";
        assertEquals(
                List.of("body:3._meta.id/duplicate-id", "body:4._meta.created_at/format", "body:5/json"),
                SliceValidatorTest.summary(JsonlBody.validate(body)));
    }

    @Test
    void contract_writeModesAllowTheDocumentedChanges() {
        assertInstanceOf(WriteCheck.Allowed.class, contract("append", null).check(Change.APPEND, 10, 100));
        assertEquals("write-mode", refusedRule(contract("append", null).check(Change.SUPERSEDE, 10, 100)));
        assertEquals("write-mode", refusedRule(contract("append", null).check(Change.REPLACE, 10, 100)));
        assertInstanceOf(WriteCheck.Allowed.class, contract("supersede", null).check(Change.SUPERSEDE, 10, 100));
        assertEquals("write-mode", refusedRule(contract("supersede", null).check(Change.REPLACE, 10, 100)));
        assertInstanceOf(WriteCheck.Allowed.class, contract("replace", null).check(Change.REPLACE, 10, 100));
        assertEquals("write-error", refusedRule(contract("error", null).check(Change.APPEND, 10, 100)));
        assertInstanceOf(WriteCheck.Allowed.class, Contract.none().check(Change.REPLACE, 10, 100));
    }

    @Test
    void contract_overflowPoliciesDecideWhatHappensOverTheLimit() {
        assertEquals("overflow", refusedRule(contract("append", "error").check(Change.APPEND, 101, 100)));
        assertEquals("overflow", refusedRule(contract("append", null).check(Change.APPEND, 101, 100)));
        assertInstanceOf(WriteCheck.Allowed.class, contract("append", "error").check(Change.APPEND, 100, 100));
        WriteCheck.Overflow split = assertInstanceOf(
                WriteCheck.Overflow.class, contract("append", "split").check(Change.APPEND, 101, 100));
        assertEquals(Contract.OverflowPolicy.SPLIT, split.policy());
        assertTrue(split.message().contains("new slice"), split.message());
        assertEquals(
                Contract.OverflowPolicy.SUMMARIZE,
                assertInstanceOf(
                                WriteCheck.Overflow.class,
                                contract("replace", "summarize").check(Change.REPLACE, 101, 100))
                        .policy());
        assertEquals(
                Contract.OverflowPolicy.ARCHIVE,
                assertInstanceOf(
                                WriteCheck.Overflow.class,
                                contract(null, "archive").check(Change.APPEND, 101, 100))
                        .policy());
    }

    @Test
    void appendUnderContract_blocksWhatTheContractForbids() {
        String body = decisionsBody();
        JsonNode row = json("{\"_meta\":{\"id\":\"r4\"}}");
        JsonNode sup = json("{\"_meta\":{\"id\":\"r5\",\"supersedes\":[\"01JROW00000000000000002\"]}}");
        Contract fromExample =
                Contract.of(SliceFile.parse(SliceValidatorTest.resource("slices/examples/decisions-log.slice"))
                        .slice()
                        .orElseThrow());
        assertEquals(
                new Contract(
                        java.util.Optional.of(Contract.Write.APPEND),
                        java.util.Optional.of(Contract.OverflowPolicy.SPLIT)),
                fromExample);
        appended(JsonlBody.appendRow(body, row, NOW, fromExample, 1 << 20));
        JsonlBody.Blocked b =
                assertInstanceOf(JsonlBody.Blocked.class, JsonlBody.appendRow(body, sup, NOW, fromExample, 1 << 20));
        assertEquals("write-mode", refusedRule(b.check()));
        JsonlBody.Blocked full = assertInstanceOf(
                JsonlBody.Blocked.class, JsonlBody.appendRow(body, row, NOW, fromExample, body.length()));
        assertInstanceOf(WriteCheck.Overflow.class, full.check());
        appended(JsonlBody.appendRow(body, sup, NOW, contract("supersede", null), 1 << 20));
    }

    private static Contract contract(String write, String overflow) {
        StringBuilder y = new StringBuilder("contract: {");
        if (write != null) {
            y.append("write: ").append(write).append(", ");
        }
        if (overflow != null) {
            y.append("overflow: ").append(overflow);
        }
        return Contract.of(SliceValidatorTest.base(y.append("}").toString()));
    }

    private static String refusedRule(WriteCheck c) {
        return assertInstanceOf(WriteCheck.Refused.class, c, c::toString).rule();
    }
}
