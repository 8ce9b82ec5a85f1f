package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden cases under {@code golden/<case>/}: {@code input.md} (served at the path the ops
 * name; other paths come from the example tree), {@code op.json} (one op or an array),
 * and {@code expected.md} (final text of the target path) or {@code expected-error.json}
 * ({@code {op_index, reason}}). Run with {@code -Dgolden.update=true} to (re)write expected
 * files into src/test/resources; review them before committing.
 */
class GoldenTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static Stream<String> cases() throws IOException {
        try (Stream<Path> s = Files.list(TestSupport.resourceDir("golden"))) {
            return s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void goldenCase_matchesExpected(String name) throws IOException {
        Path dir = TestSupport.resourceDir("golden").resolve(name);
        JsonNode opJson = JSON.readTree(Files.readString(dir.resolve("op.json")));
        List<Op> ops = new ArrayList<>();
        for (JsonNode o : opJson.isArray() ? opJson : JSON.createArrayNode().add(opJson)) {
            OpParse parsed = OpCodec.parse(o);
            if (parsed instanceof OpParse.Invalid inv) {
                throw new AssertionError("golden op does not parse: " + inv);
            }
            ops.add(((OpParse.Ok) parsed).op());
        }
        RepoPath target = target(ops.get(0));
        Map<RepoPath, String> files = TestSupport.exampleTree();
        if (Files.exists(dir.resolve("input.md"))) {
            files.put(target, Files.readString(dir.resolve("input.md")));
        }
        ApplyResult result = Declarations.apply(
                TestSupport.grammar(), TestSupport.source(files), ops, TestSupport.NOW, TestSupport.HASHER);
        // Determinism: a second run (replay) gives the identical result.
        assertEquals(
                result,
                Declarations.apply(
                        TestSupport.grammar(), TestSupport.source(files), ops, TestSupport.NOW, TestSupport.HASHER));
        String actual;
        String expectedFile;
        if (result instanceof ApplyResult.Rejected rej) {
            ObjectNode e = JSON.createObjectNode();
            e.put("op_index", rej.opIndex());
            e.put("reason", rej.reason().wireName());
            actual = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(e) + "\n";
            expectedFile = "expected-error.json";
        } else {
            ApplyResult.Applied a = (ApplyResult.Applied) result;
            actual = a.newContents().getOrDefault(target, files.get(target));
            expectedFile = "expected.md";
            a.newContents()
                    .forEach((p, t) -> assertEquals(
                            List.of(),
                            new Linter()
                                    .lint(TestSupport.grammar(), p, t).stream()
                                            .filter(x -> !x.rule().startsWith("cap-"))
                                            .toList()));
        }
        if (Boolean.getBoolean("golden.update")) {
            Path src = Path.of("src/test/resources/golden", name);
            Files.deleteIfExists(src.resolve("expected.md"));
            Files.deleteIfExists(src.resolve("expected-error.json"));
            Files.writeString(src.resolve(expectedFile), actual);
            return;
        }
        assertEquals(Files.readString(dir.resolve(expectedFile)), actual, name);
    }

    private static RepoPath target(Op op) {
        if (op instanceof CreateEntity c) {
            String base = "users/" + c.userId();
            return RepoPath.of(
                    switch (c.entityType()) {
                        case "user" -> base + "/overview.md";
                        case "part" -> base + "/parts/" + c.entityId() + "/profile.md";
                        default -> base + "/relationships/" + c.entityId() + "/profile.md";
                    });
        }
        if (op instanceof ReplaceSection r) {
            return r.path();
        }
        if (op instanceof AppendSection a) {
            return a.path();
        }
        if (op instanceof AppendItem a) {
            return a.path();
        }
        if (op instanceof CurateItems c) {
            return c.path();
        }
        return ((TombstoneSection) op).path();
    }
}
