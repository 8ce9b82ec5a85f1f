package dev.memoryd.grammar.slices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RoutineCompilerTest {
    private static final Path GOLDEN = Path.of("src/test/resources/routines/nested");

    private static String golden(String name) {
        try {
            return Files.readString(GOLDEN.resolve(name), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> nested() {
        Map<String, String> t = new HashMap<>();
        t.put("01JROUTINE00000000000000W1", golden("weekly-review.slice"));
        t.put("01JROUTINE00000000000000C1", golden("check-in.slice"));
        t.put("users/sam/overview.md", golden("overview.md"));
        return t;
    }

    private static RoutineCompiler.Result compile(Map<String, String> targets, String id, int depth) {
        return new RoutineCompiler(k -> Optional.ofNullable(targets.get(k)), depth).compile(id);
    }

    private static String routine(String id, String body) {
        return "---\nslice:\n  v: 1\n  id: " + id + "\n  title: R " + id + "\n  summary: s\n  kind: context\n  body:\n"
                + "    type: routine\n---\n" + body;
    }

    @Test
    void stepsCompileToTheGoldenMarkdown_readsInlinedAndRoutinesNested() {
        RoutineCompiler.Result r = compile(nested(), "01JROUTINE00000000000000W1", RoutineCompiler.DEFAULT_DEPTH);
        assertEquals(new RoutineCompiler.Compiled(golden("expected.md")), r);
    }

    @Test
    void compilingTwiceGivesTheSameBytes() {
        assertEquals(
                compile(nested(), "01JROUTINE00000000000000W1", 4), compile(nested(), "01JROUTINE00000000000000W1", 4));
    }

    @Test
    void anUnknownStepTypeIsRefusedNamingItsLine() {
        Map<String, String> t =
                Map.of("A", routine("A", "{\"type\":\"instruction\",\"text\":\"x\"}\n\n{\"type\":\"dance\"}\n"));
        RoutineCompiler.Refused r = assertInstanceOf(RoutineCompiler.Refused.class, compile(t, "A", 4));
        assertEquals("unknown_step", r.rule());
        assertEquals(3, r.line());
        assertTrue(r.message().contains("\"dance\"") && r.message().contains("instruction, read, run"), r.message());
    }

    @Test
    void aReadOfNothingIsRefusedNamingTheTarget() {
        Map<String, String> t = Map.of("A", routine("A", "{\"type\":\"read\",\"target\":\"users/nobody.md\"}\n"));
        RoutineCompiler.Refused r = assertInstanceOf(RoutineCompiler.Refused.class, compile(t, "A", 4));
        assertEquals("missing_target", r.rule());
        assertEquals(1, r.line());
        assertTrue(r.message().contains("users/nobody.md"), r.message());
    }

    @Test
    void aCycleOfReadsIsRefusedNotFollowed() {
        Map<String, String> t = Map.of(
                "A", routine("A", "{\"type\":\"read\",\"target\":\"B\"}\n"),
                "B", routine("B", "{\"type\":\"read\",\"target\":\"A\"}\n"));
        RoutineCompiler.Refused r = assertInstanceOf(RoutineCompiler.Refused.class, compile(t, "A", 10));
        assertEquals("cycle", r.rule());
        assertTrue(r.message().contains("A -> B"), r.message());
    }

    @Test
    void nestingDeeperThanTheLimitIsRefused() {
        Map<String, String> t = new HashMap<>();
        for (int i = 0; i < 6; i++) {
            t.put("R" + i, routine("R" + i, "{\"type\":\"read\",\"target\":\"R" + (i + 1) + "\"}\n"));
        }
        t.put("R6", routine("R6", "{\"type\":\"instruction\",\"text\":\"done\"}\n"));
        assertEquals(
                "too_deep",
                assertInstanceOf(RoutineCompiler.Refused.class, compile(t, "R0", 3))
                        .rule());
        assertInstanceOf(RoutineCompiler.Compiled.class, compile(t, "R0", 7));
    }

    @Test
    void stepsMissingTheirFieldOrWithBadArgsAreRefused() {
        for (String body : new String[] {
            "{\"type\":\"instruction\"}",
            "{\"type\":\"run\",\"command\":\"ls\",\"args\":\"-l\"}",
            "{\"type\":\"run\",\"command\":\"ls\",\"args\":[1]}",
            "[1,2]",
            "{\"type\":\"read\",\"target\":\"\"}"
        }) {
            RoutineCompiler.Refused r = assertInstanceOf(
                    RoutineCompiler.Refused.class, compile(Map.of("A", routine("A", body + "\n")), "A", 4), body);
            assertEquals("bad_step", r.rule(), body);
        }
    }

    @Test
    void aSliceThatIsNoRoutineIsRefused() {
        Map<String, String> t = Map.of("users/sam/overview.md", golden("overview.md"));
        assertEquals(
                "not_routine",
                assertInstanceOf(RoutineCompiler.Refused.class, compile(t, "users/sam/overview.md", 4))
                        .rule());
        assertEquals(
                "missing_target",
                assertInstanceOf(RoutineCompiler.Refused.class, compile(t, "nothing", 4))
                        .rule());
    }

    @Test
    void argumentsAreQuotedOnlyWhenTheyNeedIt() {
        assertEquals("plain-1.2/x", RoutineCompiler.quote("plain-1.2/x"));
        assertEquals("'two words'", RoutineCompiler.quote("two words"));
        assertEquals("'it'\\''s'", RoutineCompiler.quote("it's"));
        assertEquals("''", RoutineCompiler.quote(""));
    }
}
