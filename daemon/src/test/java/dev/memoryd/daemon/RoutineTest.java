package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** {@code routine.compile} and {@code memoryd routine} on a served root: slices made with {@code slices.create}. */
class RoutineTest extends ServedRootTest {

    private String routine(String title, String... steps) throws Exception {
        ObjectNode p = TestRoot.json(
                "{\"slice\":{\"kind\":\"context\",\"summary\":\"A routine.\",\"body\":{\"type\":\"routine\"}}}");
        ((ObjectNode) p.get("slice")).put("title", title);
        p.put("body", String.join("\n", steps) + "\n");
        JsonNode r = root.call("slices.create", p.toString());
        assertTrue(r.has("result"), r.toString());
        return r.get("result").get("id").asText();
    }

    private static String reason(JsonNode r) {
        return r.path("error").path("data").path("reason").asText("(no error: " + r + ")");
    }

    @Test
    void aRoutineCompilesWithItsReadsInlinedAndItsNestedRoutine() throws Exception {
        String inner = routine("Check in", "{\"type\":\"instruction\",\"text\":\"Ask what it protects.\"}");
        String outer = routine(
                "Weekly review",
                "{\"type\":\"read\",\"target\":\"users/sam/overview.md\",\"note\":\"Keep their words.\"}",
                "{\"type\":\"read\",\"target\":\"" + inner + "\"}",
                "{\"type\":\"run\",\"command\":\"bin/memoryd\",\"args\":[\"search\",\"inner critic\"]}");
        JsonNode r = root.call("routine.compile", "{\"id\":\"" + outer + "\"}");
        String md = r.path("result").path("markdown").asText();
        assertTrue(md.startsWith("# Weekly review\n\nA routine.\n\n## Step 1: read `users/sam/overview.md`\n"), md);
        String overview = java.nio.file.Files.readString(root.dir.resolve("users/sam/overview.md"));
        String firstHeading =
                overview.lines().filter(l -> l.startsWith("## ")).findFirst().orElseThrow();
        assertTrue(md.contains(firstHeading), "the file's body is inlined: " + md);
        assertTrue(md.contains("> **Note:** Keep their words."), md);
        assertTrue(md.contains("### Check in\n\nA routine.\n\n#### Step 1: instruction\n\nAsk what it protects."), md);
        assertTrue(md.contains("```sh\nbin/memoryd search 'inner critic'\n```"), md);
        assertEquals(
                r, root.call("routine.compile", "{\"id\":\"" + outer + "\"}"), "the same slices give the same bytes");

        Cli.Run cli = Cli.run("routine", outer, "--root", root.dir.toString());
        assertEquals(0, cli.code(), cli.toString());
        assertEquals(md, cli.out());
    }

    @Test
    void anUnknownStepOrTargetIsAPreciseRefusal() throws Exception {
        String bad = routine("Bad", "{\"type\":\"instruction\",\"text\":\"x\"}", "{\"type\":\"teleport\"}");
        JsonNode r = root.call("routine.compile", "{\"id\":\"" + bad + "\"}");
        assertEquals("spec_violation", reason(r), r.toString());
        assertEquals("unknown_step", r.path("error").path("data").path("rule").asText());
        assertEquals(2, r.path("error").path("data").path("line").asInt());

        String missing = routine("Missing", "{\"type\":\"read\",\"target\":\"users/nobody/notes.md\"}");
        JsonNode m = root.call("routine.compile", "{\"id\":\"" + missing + "\"}");
        assertEquals("not_found", reason(m), m.toString());
        assertTrue(m.path("error").path("message").asText().contains("users/nobody/notes.md"), m.toString());

        assertEquals("not_found", reason(root.call("routine.compile", "{\"id\":\"01JNOSUCHSLICE000000000000\"}")));
        assertEquals(
                "spec_violation",
                reason(root.call("routine.compile", "{\"id\":\"users/sam/overview.md\"}")),
                "a memory file is no routine");
        assertEquals("invalid_request", reason(root.call("routine.compile", "{\"id\":\"" + bad + "\",\"depth\":0}")));
        Cli.Run cli = Cli.run("routine", bad, "--root", root.dir.toString());
        assertEquals(1, cli.code(), cli.toString());
        assertTrue(cli.err().contains("unknown step type \"teleport\""), cli.toString());
    }
}
