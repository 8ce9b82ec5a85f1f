package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.cli.Main;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * File references against real Git repositories made with the git CLI, over a served daemon's
 * socket: pins, reconcile findings in the drift queue, re-pin and retire, and bad input that
 * records nothing.
 */
class RefsTest extends ServedRootTest {
    static final String OVERVIEW = "users/sam/overview.md";

    Path other;

    @BeforeEach
    void otherRepo() throws Exception {
        other = tmp.resolve("code");
        Files.createDirectories(other.resolve("src"));
        git(other, "init", "-q", "-b", "main");
        git(other, "config", "user.name", "Ada Lovelace");
        git(other, "config", "user.email", "ada@example.com");
        write(other, "src/engine.txt", "difference engine\n");
        write(other, "src/notes.txt", "notes\n");
        write(other, "README", "readme\n");
        git(other, "add", "-A");
        git(other, "commit", "-q", "-m", "first");
    }

    @Test
    void editedFile_isFlaggedChangedWithTheCommitThatTouchedIt() throws Exception {
        String id = add("src/engine.txt", other);
        write(other, "src/engine.txt", "analytical engine\n");
        git(other, "commit", "-q", "-am", "Rename the engine");
        String sha = git(other, "rev-parse", "HEAD").trim();

        JsonNode r = ok(root.call("refs.reconcile", "{}"));
        assertEquals(1, r.get("checked").asInt());
        JsonNode f = single(r.get("findings"));
        assertEquals("ref_changed", f.get("kind").asText());
        assertEquals(id, f.get("id").asText());
        assertTrue(f.get("recorded").asBoolean());
        JsonNode c = single(f.get("commits"));
        assertEquals(sha, c.get("id").asText());
        assertEquals("Ada Lovelace <ada@example.com>", c.get("author").asText());
        assertEquals("Rename the engine", c.get("subject").asText());

        JsonNode item = single(ok(root.call("drift.list", "{}")).get("items"));
        assertEquals("ref_changed", item.get("kind").asText());
        assertEquals(".slices/" + id + ".slice", item.get("path").asText());
        assertEquals(f.get("drift_id").asText(), item.get("id").asText());
        JsonNode shown =
                ok(root.call("drift.show", "{\"id\":\"" + item.get("id").asText() + "\"}"));
        assertEquals(sha, shown.path("human").path("commits").get(0).get("id").asText());
    }

    @Test
    void gitMv_isFlaggedRenamedNamingTheNewPath() throws Exception {
        add("src/engine.txt", other);
        git(other, "mv", "src/engine.txt", "src/analytical.txt");
        git(other, "commit", "-q", "-m", "move the engine");
        String sha = git(other, "rev-parse", "HEAD").trim();

        JsonNode f = single(ok(root.call("refs.reconcile", "{}")).get("findings"));
        assertEquals("ref_renamed", f.get("kind").asText());
        assertEquals("src/analytical.txt", f.get("new_path").asText());
        assertEquals(sha, single(f.get("commits")).get("id").asText());
    }

    @Test
    void renameThenEdit_listsBothCommitsNewestFirst() throws Exception {
        add("src/engine.txt", other);
        git(other, "mv", "src/engine.txt", "src/analytical.txt");
        git(other, "commit", "-q", "-m", "move");
        write(other, "src/analytical.txt", "difference engine\nwith a mill\n");
        git(other, "commit", "-q", "-am", "add the mill");

        JsonNode f = single(ok(root.call("refs.reconcile", "{}")).get("findings"));
        assertEquals("ref_renamed", f.get("kind").asText());
        assertEquals("src/analytical.txt", f.get("new_path").asText());
        assertEquals(List.of("add the mill", "move"), subjects(f.get("commits")));
    }

    @Test
    void deletedFile_isFlaggedDeleted() throws Exception {
        add("src/engine.txt", other);
        git(other, "rm", "-q", "src/engine.txt");
        git(other, "commit", "-q", "-m", "drop the engine");

        JsonNode f = single(ok(root.call("refs.reconcile", "{}")).get("findings"));
        assertEquals("ref_deleted", f.get("kind").asText());
        assertTrue(f.get("new_path").isNull());
        assertEquals(List.of("drop the engine"), subjects(f.get("commits")));
    }

    @Test
    void resolvingADeletedReferencesDriftItem_pointsToRetire_notToRepin() throws Exception {
        add("src/engine.txt", other);
        git(other, "rm", "-q", "src/engine.txt");
        git(other, "commit", "-q", "-m", "drop the engine");
        JsonNode f = single(ok(root.call("refs.reconcile", "{}")).get("findings"));
        for (String how : List.of("dismiss", "accept_current")) {
            JsonNode r = root.call(
                    "drift.resolve", "{\"id\":\"" + f.get("drift_id").asText() + "\",\"resolution\":\"" + how + "\"}");
            String msg = r.path("error").path("message").asText();
            assertTrue(msg.contains("refs retire " + f.get("id").asText()), how + ": " + r);
            assertFalse(msg.contains("repin"), how + ": " + r);
        }
        assertTrue(PayloadLines.assertTyped(root.dir) > 0, "every line recorded, read back typed, parses");
    }

    @Test
    void unchangedFile_recordsNothingEvenWhenOtherFilesChanged() throws Exception {
        add("src/engine.txt", other);
        write(other, "src/notes.txt", "more notes\n");
        git(other, "commit", "-q", "-am", "notes only");
        State before = state();

        JsonNode r = ok(root.call("refs.reconcile", "{}"));
        assertEquals(1, r.get("unchanged").asInt());
        assertTrue(r.get("findings").isEmpty());
        assertTrue(r.get("commit").isNull());
        assertEquals(before, state());
    }

    @Test
    void referenceIntoTheMemoryRepository_isPinnedAndReconciled() throws Exception {
        root.git("config", "user.name", "Sam Human");
        root.git("config", "user.email", "sam@example.com");
        write(root.dir, "docs/plan.txt", "plan A\n");
        root.git("add", "docs/plan.txt");
        root.git("commit", "-q", "-m", "a plan");
        JsonNode added = ok(root.call(
                "refs.add",
                "{\"path\":\"docs/plan.txt\",\"placed_on\":\"" + OVERVIEW + "\",\"section\":\"Current Focus\"}"));
        assertEquals(".", added.get("repo").asText());
        assertEquals("./docs/plan.txt", added.get("uri").asText());
        String pointer = root.file(added.get("pointer").asText());
        assertTrue(pointer.contains("kind: pointer"), pointer);
        assertTrue(pointer.contains("section: Current Focus"), pointer);
        assertTrue(ok(root.call("lint", "{}")).get("problems").isEmpty());

        write(root.dir, "docs/plan.txt", "plan B\n");
        root.git("commit", "-q", "-am", "change of plan");
        JsonNode f = single(ok(root.call("refs.reconcile", "{}")).get("findings"));
        assertEquals("ref_changed", f.get("kind").asText());
        assertEquals("change of plan", single(f.get("commits")).get("subject").asText());
    }

    @Test
    void secondReconcile_doesNotDuplicateTheOpenItem_butANewerCommitUpdatesIt() throws Exception {
        add("src/engine.txt", other);
        write(other, "src/engine.txt", "v2\n");
        git(other, "commit", "-q", "-am", "v2");
        String driftId = single(ok(root.call("refs.reconcile", "{}")).get("findings"))
                .get("drift_id")
                .asText();
        State before = state();

        JsonNode again = single(ok(root.call("refs.reconcile", "{}")).get("findings"));
        assertFalse(again.get("recorded").asBoolean());
        assertEquals(driftId, again.get("drift_id").asText());
        assertEquals(before, state());

        write(other, "src/engine.txt", "v3\n");
        git(other, "commit", "-q", "-am", "v3");
        JsonNode third = single(ok(root.call("refs.reconcile", "{}")).get("findings"));
        assertTrue(third.get("recorded").asBoolean());
        assertEquals(driftId, third.get("drift_id").asText());
        assertEquals(List.of("v3", "v2"), subjects(third.get("commits")));
        assertEquals(1, ok(root.call("drift.list", "{}")).get("items").size());
    }

    @Test
    void fileBackAtItsPinnedBytes_closesTheOpenItem() throws Exception {
        add("src/engine.txt", other);
        write(other, "src/engine.txt", "v2\n");
        git(other, "commit", "-q", "-am", "v2");
        String driftId = single(ok(root.call("refs.reconcile", "{}")).get("findings"))
                .get("drift_id")
                .asText();
        write(other, "src/engine.txt", "difference engine\n");
        git(other, "commit", "-q", "-am", "back to v1");

        JsonNode r = ok(root.call("refs.reconcile", "{}"));
        assertTrue(r.get("findings").isEmpty());
        assertEquals(List.of(driftId), List.of(single(r.get("closed")).asText()));
        assertTrue(ok(root.call("drift.list", "{}")).get("items").isEmpty());
    }

    @Test
    void repin_followsTheRename_closesTheItem_andASecondReconcileFindsNothing() throws Exception {
        String id = add("src/engine.txt", other);
        git(other, "mv", "src/engine.txt", "src/analytical.txt");
        git(other, "commit", "-q", "-m", "move");
        String driftId = single(ok(root.call("refs.reconcile", "{}")).get("findings"))
                .get("drift_id")
                .asText();

        JsonNode r = ok(root.call("refs.repin", "{\"id\":\"" + id + "\"}"));
        assertEquals("src/analytical.txt", r.get("path").asText());
        assertEquals(
                git(other, "rev-parse", "HEAD").trim(), r.get("pinned_commit").asText());
        assertTrue(ok(root.call("drift.list", "{}")).get("items").isEmpty());
        assertTrue(root.file(".slices/" + id + ".slice").contains("path: src/analytical.txt"));
        JsonNode history = ok(root.call("history", "{\"path\":\".slices/" + id + ".slice\"}"))
                .get("events");
        assertEquals("drift_resolved", history.get(0).get("op").asText());
        assertEquals(
                driftId, history.get(0).path("payload").path("drift").path("id").asText());
        assertEquals(
                "repin",
                history.get(0).path("payload").path("drift").path("resolution").asText());

        State before = state();
        JsonNode again = ok(root.call("refs.reconcile", "{}"));
        assertTrue(again.get("findings").isEmpty());
        assertEquals(before, state());
        assertTrue(
                ok(root.call("replay", "{\"verify\":true}")).get("ok").asBoolean(),
                "pointer files replay byte for byte");
    }

    @Test
    void retire_closesTheItem_andTheReferenceIsNoLongerChecked() throws Exception {
        String id = add("src/engine.txt", other);
        git(other, "rm", "-q", "src/engine.txt");
        git(other, "commit", "-q", "-m", "drop");
        ok(root.call("refs.reconcile", "{}"));
        JsonNode refused = root.call("refs.repin", "{\"id\":\"" + id + "\"}");
        assertEquals("not_found", reason(refused));
        assertTrue(message(refused).contains("refs retire " + id), message(refused));

        ok(root.call("refs.retire", "{\"id\":\"" + id + "\",\"note\":\"the engine is gone\"}"));
        assertTrue(ok(root.call("drift.list", "{}")).get("items").isEmpty());
        assertTrue(root.file(".slices/" + id + ".slice").contains("retired_at:"));
        JsonNode r = ok(root.call("refs.reconcile", "{}"));
        assertEquals(0, r.get("checked").asInt());
        assertTrue(r.get("commit").isNull());
        assertTrue(ok(root.call("replay", "{\"verify\":true}")).get("ok").asBoolean());
    }

    @Test
    void driftResolve_onAReferenceItem_acceptCurrentRepins_andDismissPointsAtRefs() throws Exception {
        String id = add("src/engine.txt", other);
        write(other, "src/engine.txt", "v2\n");
        git(other, "commit", "-q", "-am", "v2");
        String driftId = single(ok(root.call("refs.reconcile", "{}")).get("findings"))
                .get("drift_id")
                .asText();
        State before = state();

        JsonNode dismissed = root.call("drift.resolve", "{\"id\":\"" + driftId + "\",\"resolution\":\"dismiss\"}");
        assertEquals("invalid_request", reason(dismissed));
        assertTrue(message(dismissed).contains("refs repin " + id), message(dismissed));
        assertEquals(before, state());

        ok(root.call("drift.resolve", "{\"id\":\"" + driftId + "\",\"resolution\":\"accept_current\"}"));
        assertTrue(ok(root.call("drift.list", "{}")).get("items").isEmpty());
        assertTrue(ok(root.call("refs.reconcile", "{}")).get("findings").isEmpty());
    }

    @Test
    void badInput_getsAPreciseError_andRecordsNothing() throws Exception {
        Files.writeString(other.resolve("uncommitted.txt"), "draft\n");
        State before = state();
        String repo = other.toString();
        assertBad(
                "not_found",
                "no file src/missing.txt",
                "{\"path\":\"src/missing.txt\",\"repo\":\"" + repo + "\",\"placed_on\":\"" + OVERVIEW + "\"}");
        assertBad(
                "not_found",
                "uncommitted.txt is not committed",
                "{\"path\":\"uncommitted.txt\",\"repo\":\"" + repo + "\",\"placed_on\":\"" + OVERVIEW + "\"}");
        assertBad(
                "invalid_request",
                "is outside the repository",
                "{\"path\":\"../memory/users/sam/overview.md\",\"repo\":\"" + repo + "\",\"placed_on\":\"" + OVERVIEW
                        + "\"}");
        assertBad(
                "invalid_request",
                "is outside the repository",
                "{\"path\":\"/etc/passwd\",\"repo\":\"" + repo + "\",\"placed_on\":\"" + OVERVIEW + "\"}");
        assertBad(
                "not_found",
                "no Git repository at",
                "{\"path\":\"a.txt\",\"repo\":\"" + tmp.resolve("nowhere") + "\",\"placed_on\":\"" + OVERVIEW + "\"}");
        Files.createDirectories(tmp.resolve("plain"));
        assertBad(
                "not_found",
                "no Git repository at",
                "{\"path\":\"a.txt\",\"repo\":\"" + tmp.resolve("plain") + "\",\"placed_on\":\"" + OVERVIEW + "\"}");
        assertBad(
                "invalid_request",
                "repo must be an absolute path",
                "{\"path\":\"a.txt\",\"repo\":\"code\",\"placed_on\":\"" + OVERVIEW + "\"}");
        assertBad(
                "invalid_request",
                "is not a file",
                "{\"path\":\"src\",\"repo\":\"" + repo + "\",\"placed_on\":\"" + OVERVIEW + "\"}");
        assertBad(
                "invalid_request",
                "missing parameter 'placed_on'",
                "{\"path\":\"src/engine.txt\",\"repo\":\"" + repo + "\"}");
        assertBad(
                "not_found",
                "placed_on 'users/nobody.md'",
                "{\"path\":\"src/engine.txt\",\"repo\":\"" + repo + "\",\"placed_on\":\"users/nobody.md\"}");
        assertBad(
                "unknown_section",
                "no section 'Nope'",
                "{\"path\":\"src/engine.txt\",\"repo\":\"" + repo + "\",\"placed_on\":\"" + OVERVIEW
                        + "\",\"section\":\"Nope\"}");
        JsonNode unknown = root.call("refs.repin", "{\"id\":\"01JUNKNOWN0000000000000000\"}");
        assertEquals("not_found", reason(unknown));
        assertTrue(message(unknown).contains("no file reference 01JUNKNOWN0000000000000000"), message(unknown));
        assertEquals("not_found", reason(root.call("refs.retire", "{\"id\":\"01JUNKNOWN0000000000000000\"}")));
        assertEquals("invalid_request", reason(root.call("refs.retire", "{\"id\":\"../x\"}")));
        assertEquals(before, state());
    }

    @Test
    void cliReconcile_exitsOneWhenReferencesMovedOn_andZeroWhenNot() throws Exception {
        add("src/engine.txt", other);
        String[] cmd = {
            "refs",
            "reconcile",
            "--root",
            root.dir.toString(),
            "--key-file",
            root.cfg.keyFile().toString()
        };
        java.io.PrintStream old = System.out;
        System.setOut(new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, Main.run(cmd));
            write(other, "src/engine.txt", "v2\n");
            git(other, "commit", "-q", "-am", "v2");
            assertEquals(1, Main.run(cmd));
        } finally {
            System.setOut(old);
        }
    }

    // ---------------------------------------------------------------- helpers

    /** What a rejected request must leave alone: ledger lines, branch head, pointer files. */
    record State(long lines, String head, List<String> slices) {}

    State state() throws IOException {
        long lines = ok(root.call("ledger.verify", null)).get("lines").asLong();
        String head = ok(root.call("ping", null)).get("head").asText();
        List<String> slices = new ArrayList<>();
        Path d = root.dir.resolve(".slices");
        if (Files.isDirectory(d)) {
            try (Stream<Path> s = Files.list(d)) {
                s.map(p -> p.getFileName().toString()).sorted().forEach(slices::add);
            }
        }
        return new State(lines, head, slices);
    }

    @Test
    void everyResult_keepsItsWireKeysInOrder_withAbsentValuesAsNull() throws Exception {
        Path gone = tmp.resolve("gone");
        Files.createDirectories(gone);
        git(gone, "init", "-q", "-b", "main");
        write(gone, "a.txt", "a\n");
        git(gone, "add", "-A");
        git(gone, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "a");
        JsonNode added = ok(root.call(
                "refs.add",
                "{\"path\":\"src/engine.txt\",\"repo\":\"" + other + "\",\"placed_on\":\"" + OVERVIEW + "\"}"));
        assertEquals(
                List.of("id", "pointer", "uri", "repo", "path", "pinned_commit", "blob", "hash", "commit", "event_id"),
                TestRoot.keys(added));
        String goneId = add("a.txt", gone);
        write(other, "src/engine.txt", "analytical engine\n");
        git(other, "commit", "-q", "-am", "edit");
        try (Stream<Path> files = Files.walk(gone)) {
            files.sorted(java.util.Comparator.reverseOrder())
                    .forEach(f -> f.toFile().delete());
        }

        JsonNode r = ok(root.call("refs.reconcile", "{}"));
        assertEquals(
                List.of("checked", "unchanged", "findings", "closed", "problems", "commit", "millis"),
                TestRoot.keys(r));
        JsonNode f = single(r.get("findings"));
        assertEquals(
                List.of(
                        "id",
                        "pointer",
                        "drift_id",
                        "recorded",
                        "kind",
                        "repo",
                        "path",
                        "new_path",
                        "commits_total",
                        "commits"),
                TestRoot.keys(f));
        assertTrue(f.get("new_path").isNull());
        assertEquals(List.of("id", "author", "date", "subject"), TestRoot.keys(single(f.get("commits"))));
        assertEquals(List.of("id", "repo", "path", "problem"), TestRoot.keys(single(r.get("problems"))));

        JsonNode list = ok(root.call("refs.list", "{}")).get("refs");
        assertEquals(2, list.size(), list.toString());
        for (JsonNode e : list) {
            List<String> expected = new ArrayList<>(List.of(
                    "id", "pointer", "repo", "path", "pinned_commit", "blob", "placed_on", "section", "retired"));
            if (!e.get("id").asText().equals(goneId)) {
                expected.add("drift_id"); // only a reference with an open item has one
            }
            assertEquals(expected, TestRoot.keys(e));
            assertEquals(List.of(OVERVIEW), List.of(single(e.get("placed_on")).asText()));
            assertTrue(e.get("section").isNull());
        }

        JsonNode repinned =
                ok(root.call("refs.repin", "{\"id\":\"" + f.get("id").asText() + "\"}"));
        assertEquals(
                List.of("id", "path", "previous_path", "pinned_commit", "blob", "commit"), TestRoot.keys(repinned));
        JsonNode retired = ok(root.call("refs.retire", "{\"id\":\"" + goneId + "\"}"));
        assertEquals(List.of("id", "retired", "commit"), TestRoot.keys(retired));
        assertTrue(retired.get("retired").asBoolean());
    }

    private void assertBad(String reason, String text, String params) throws IOException {
        JsonNode r = root.call("refs.add", params);
        assertEquals(reason, reason(r), r.toString());
        assertTrue(message(r).contains(text), message(r));
    }

    private String add(String path, Path repo) throws IOException {
        return ok(root.call(
                        "refs.add",
                        "{\"path\":\"" + path + "\",\"repo\":\"" + repo + "\",\"placed_on\":\"" + OVERVIEW + "\"}"))
                .get("id")
                .asText();
    }

    static JsonNode ok(JsonNode reply) {
        assertFalse(reply.has("error"), () -> reply.toString());
        return reply.get("result");
    }

    static JsonNode single(JsonNode array) {
        assertEquals(1, array.size(), array.toString());
        return array.get(0);
    }

    static String reason(JsonNode reply) {
        return reply.path("error").path("data").path("reason").asText();
    }

    static String message(JsonNode reply) {
        return reply.path("error").path("message").asText();
    }

    static List<String> subjects(JsonNode commits) {
        List<String> out = new ArrayList<>();
        commits.forEach(c -> out.add(c.get("subject").asText()));
        return out;
    }

    static void write(Path repo, String rel, String text) throws IOException {
        Files.createDirectories(repo.resolve(rel).getParent());
        Files.writeString(repo.resolve(rel), text, StandardCharsets.UTF_8);
    }

    static String git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new AssertionError("git " + String.join(" ", args) + " failed: " + out);
        }
        return out;
    }
}
