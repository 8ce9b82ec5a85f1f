package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code history}, {@code resolve}, {@code capture}, {@code slices create} and {@code conversation
 * append}: the command line against a daemon serving the root, each for a success and for a
 * refusal that names what is wrong.
 */
class CliMethodsTest extends ServedRootTest {
    static final String OVERVIEW = "users/sam/overview.md";
    static final String TURN =
            "{\"id\":\"6f1c2a4e-0b7d-4c1e-9a53-2d8e5f7b9c01\",\"role\":\"user\",\"phase\":\"planning\",\"salience\":0.5,"
                    + "\"trajectory_depth\":0,\"trajectory_sibling_order\":0,\"trajectory_homogeneity\":0.5,"
                    + "\"trajectory_temporal\":0.5,\"trajectory_complexity\":1.0,\"created_at\":\"2026-01-01T00:00:00Z\"}";

    private Cli.Run run(String... args) {
        return Cli.run(root.cliArgs(args));
    }

    /** Appends an item through the daemon; returns the write's first event (with its token). */
    private JsonNode appendItem(String item) throws Exception {
        JsonNode r = root.call(
                "write",
                "{\"rationale\":\"the user named a theme\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + OVERVIEW
                        + "\",\"section\":\"Active Themes\",\"item\":\"" + item + "\"}]}");
        assertTrue(r.has("result"), r.toString());
        return r.get("result").get("events").get(0);
    }

    @Test
    void history_printsTheSectionsEvents_newestFirst_withTheirRationale() throws Exception {
        appendItem("First theme");
        JsonNode second = appendItem("Second theme");
        Cli.Run r = run("history", OVERVIEW, "--section", "Active Themes");
        assertEquals(0, r.code(), r.toString());
        String first = r.out().lines().findFirst().orElseThrow();
        assertTrue(
                first.contains("append_item")
                        && first.endsWith(second.get("event_id").asText()),
                r.toString());
        assertTrue(r.out().contains("    the user named a theme"), r.toString());
        JsonNode json =
                TestRoot.json(run("history", OVERVIEW, "--limit", "1", "--json").out());
        assertEquals(1, json.get("events").size(), json.toString());
    }

    @Test
    void history_ofAnUnknownBranch_isRefused_namingIt() {
        Cli.Run r = run("history", OVERVIEW, "--branch", "nosuch");
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().startsWith("memoryd: not_found: ") && r.err().contains("nosuch"), r.toString());
        assertEquals("", r.out(), r.toString());
    }

    @Test
    void resolve_printsTheEventTheTokenNames() throws Exception {
        JsonNode ev = appendItem("A theme");
        Cli.Run r = run("resolve", ev.get("token").asText(), "--json");
        assertEquals(0, r.code(), r.toString());
        JsonNode got = TestRoot.json(r.out());
        assertEquals(ev.get("event_id").asText(), got.get("event_id").asText(), r.toString());
        assertEquals("the user named a theme", got.get("rationale").asText(), r.toString());
    }

    @Test
    void resolve_ofSomethingNotAToken_isRefused_sayingSo() {
        Cli.Run r = run("resolve", "not-a-token");
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().startsWith("memoryd: invalid_request: not an evidence token"), r.toString());
    }

    @Test
    void capture_recordsAHumansEdit_thenHasNothingLeftToCapture() throws Exception {
        Path f = root.dir.resolve(OVERVIEW);
        Files.writeString(f, Files.readString(f).replace("Sam is a fictional example user", "Sam is an example user"));
        Cli.Run r = run("capture", OVERVIEW);
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().startsWith("captured in commit "), r.toString());
        String commit = r.out().strip().substring("captured in commit ".length());
        assertEquals(commit, root.git("rev-parse", "HEAD").strip());
        assertTrue(root.git("status", "--porcelain").isEmpty(), "the edit is committed");
        Cli.Run again = run("capture", "--json");
        assertEquals(0, again.code(), again.toString());
        assertEquals(false, TestRoot.json(again.out()).get("captured").asBoolean(), again.toString());
    }

    @Test
    void capture_ofAPathOutsideTheRoot_isRefused_namingThePath() throws Exception {
        String head = root.git("rev-parse", "HEAD");
        Cli.Run r = run("capture", "../outside.md");
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().startsWith("memoryd: invalid_request: bad path '../outside.md'"), r.toString());
        assertEquals(head, root.git("rev-parse", "HEAD"));
    }

    @Test
    void slicesCreate_makesTheSlice_andPrintsItsIdAndPath() throws Exception {
        Cli.Run r = run(
                "slices",
                "create",
                "{\"title\":\"Decisions\",\"summary\":\"Plan.\",\"body\":{\"type\":\"markdown\"}}",
                "--body",
                "# Decisions\n\nShip it.\n");
        assertEquals(0, r.code(), r.toString());
        String[] words = r.out().strip().split("  ");
        assertEquals(".slices/" + words[0] + ".slice", words[1], r.toString());
        assertTrue(Files.readString(root.dir.resolve(words[1])).contains("Ship it."), r.toString());
    }

    @Test
    void slicesCreate_withAnUnknownBodyType_isRefused_namingTheField() throws Exception {
        String head = root.git("rev-parse", "HEAD");
        Cli.Run r = run("slices", "create", "{\"title\":\"T\",\"summary\":\"S\",\"body\":{\"type\":\"video\"}}");
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().startsWith("memoryd: ") && r.err().contains("body.type"), r.toString());
        assertEquals(head, root.git("rev-parse", "HEAD"));
    }

    @Test
    void slicesCreate_withAMappingThatIsNotJson_isAUsageError() {
        Cli.Run r = run("slices", "create", "{title: T}");
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().startsWith("memoryd: the slice mapping is not valid JSON at line 1, column "), r.toString());
        assertTrue(!r.err().contains("REDACTED") && !r.err().contains("Source"), r.toString());
    }

    @Test
    void conversationAppend_recordsTheTurns() throws Exception {
        Path turns = tmp.resolve("turns.json");
        Files.writeString(turns, "[" + TURN + "]");
        Cli.Run r = run("conversation", "append", "s1", "--file", turns.toString(), "--json");
        assertEquals(0, r.code(), r.toString());
        JsonNode got = TestRoot.json(r.out());
        assertEquals(root.git("rev-parse", "HEAD").strip(), got.get("commit").asText(), r.toString());
        JsonNode ctx = root.call("context", "{\"anchor_turn_id\":\"6f1c2a4e-0b7d-4c1e-9a53-2d8e5f7b9c01\"}");
        assertTrue(ctx.has("result"), ctx.toString());
    }

    @Test
    void conversationAppend_withATurnMissingItsRole_isRefused_namingTheField() throws Exception {
        Path turns = tmp.resolve("turns.json");
        Files.writeString(turns, "[" + TURN.replace("\"role\":\"user\",", "") + "]");
        Cli.Run r = run("conversation", "append", "s1", "--file", turns.toString());
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.err().startsWith("memoryd: invalid_request: ") && r.err().contains("turns[0].role"), r.toString());
    }

    @Test
    void conversationAppend_withTurnsNotAnArray_isAUsageError() throws Exception {
        Path turns = tmp.resolve("turns.json");
        Files.writeString(turns, TURN);
        Cli.Run r = run("conversation", "append", "s1", "--file", turns.toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().startsWith("memoryd: the turns must be a JSON array"), r.toString());
    }
}
