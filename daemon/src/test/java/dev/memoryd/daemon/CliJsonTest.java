package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@code --json}: a command prints its result as one line of JSON instead of the human-readable form. */
class CliJsonTest extends ServedRootTest {

    /** Runs {@code args --json} on the root; asserts the exit code and one line of JSON out, and returns it. */
    private JsonNode json(int code, String... args) throws Exception {
        String[] withJson = Arrays.copyOf(args, args.length + 1);
        withJson[args.length] = "--json";
        Cli.Run r = Cli.run(root.cliArgs(withJson));
        assertEquals(code, r.code(), String.join(" ", args) + ": " + r);
        assertEquals(1, r.out().lines().count(), String.join(" ", args) + " printed not one line: " + r);
        return TestRoot.json(r.out());
    }

    @Test
    void commandsWorkingWithoutADaemon_printOneLineOfJson() throws Exception {
        JsonNode read = json(0, "read", "users/sam/overview.md", "--section", "Identity");
        assertTrue(read.get("content").asText().startsWith("Sam is a fictional example user"), read.toString());
        assertEquals(0, json(0, "lint").get("problems").size());
        JsonNode verify = json(0, "ledger", "verify");
        assertTrue(
                verify.get("ok").asBoolean() && verify.get("lines").asInt() >= TestRoot.IMPORT_LINES,
                verify.toString());
        assertTrue(json(0, "slices", "list").get("items").isArray());
    }

    @Test
    void lint_withProblems_printsThemAsJson_andExitsOne() throws Exception {
        Path f = root.dir.resolve("users/sam/overview.md");
        Files.writeString(f, Files.readString(f).replace("<!-- @anchor: identity v1 -->", ""));
        JsonNode r = json(1, "lint", "users/sam/overview.md");
        assertEquals("anchor-missing", r.get("problems").get(0).get("rule").asText(), r.toString());
    }

    @Test
    void commandsSentToTheDaemon_printItsResultAsOneLine() throws Exception {
        assertTrue(json(0, "ping").has("version"));
        assertTrue(json(0, "search", "teacher").get("hits").size() > 0);
        assertEquals(0, json(0, "drift", "list").get("items").size());
        assertEquals(
                "main",
                json(0, "branch", "list").get("branches").get(0).get("name").asText());
        assertTrue(json(0, "refs", "list").isObject());
        assertEquals(0, json(0, "proposals", "list").get("items").size());
    }
}
