package dev.memoryd.daemon.console;

import static dev.memoryd.daemon.console.Browserless.form;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What the pages show and what a decision records, over plain HTTP against a real console and daemon. */
@Timeout(120)
class ConsolePagesTest {
    @TempDir
    Path tmp;

    ConsoleRoot root;

    @AfterEach
    void close() throws Exception {
        if (root != null) {
            root.close();
        }
    }

    @Test
    void withNoDaemon_everyPageSaysHowToStartOne_andTheConsoleStillLogsIn() throws Exception {
        root = new ConsoleRoot(tmp).startConsole(ConsoleRoot.ACTOR);
        Browserless b = new Browserless(root);
        assertEquals(303, b.login().statusCode());
        for (String path : new String[] {"/", "/drift", "/proposals", "/file?path=" + ConsoleRoot.CRITIC, "/ledger"}) {
            HttpResponse<String> r = b.get(path);
            assertEquals(503, r.statusCode(), path);
            assertTrue(r.body().contains("bin/memoryd serve --root " + root.dir), r.body());
        }
        HttpResponse<String> post = b.post("/drift/resolve", form("id", "x", "resolution", "dismiss", "csrf", "x"));
        assertEquals(403, post.statusCode(), "the guard answers before any daemon call");
    }

    @Test
    void theOverview_countsOpenDriftAndProposals_andNamesTheBranchAndHead() throws Exception {
        root = new ConsoleRoot(tmp).serve();
        root.humanEdit(ConsoleRoot.YOUNG, "## Role\n", "## Job\n");
        root.markForReview("role");
        root.propose("Role", "A guard who wants rest.", "tired", null);
        Browserless b = new Browserless(root);
        b.login();
        String page = b.get("/").body();
        JsonNode ping = root.ok("ping", null);
        assertTrue(page.contains(ping.path("head").asText()) && page.contains(">main<"), page);
        assertTrue(
                page.contains("<a href=\"/drift\">1 open</a>") && page.contains("<a href=\"/proposals\">1 open</a>"),
                page);
        assertTrue(page.contains("verified"), page);
    }

    @Test
    void aFilePage_showsEachSectionsLastChange_fromItsAgentWrite_orTheHumansImport() throws Exception {
        root = new ConsoleRoot(tmp).serve();
        root.ok(
                "write",
                "{\"rationale\":\"it said so\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"append_item\",\"path\":\""
                        + ConsoleRoot.YOUNG + "\",\"section\":\"Needs\",\"item\":\"Quiet mornings\"}]}");
        Browserless b = new Browserless(root);
        b.login();
        String page = b.get("/file?path=" + ConsoleRoot.YOUNG).body();
        String needs = page.substring(page.indexOf("id=\"needs\""));
        needs = needs.substring(0, needs.indexOf("</section>"));
        assertTrue(
                needs.contains("<b>append_item</b> by agent-7")
                        && needs.contains("it said so")
                        && needs.contains("Quiet mornings"),
                needs);
        String identity = page.substring(page.indexOf("id=\"identity\""));
        identity = identity.substring(0, identity.indexOf("</section>"));
        assertTrue(identity.contains("<b>human_edit</b>"), identity);
    }

    @Test
    void theFilesPage_listsEveryMemoryFile_fiftyAPage_eachLinkingToItsPage() throws Exception {
        root = new ConsoleRoot(tmp).serve();
        StringBuilder ops = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            ops.append(i == 0 ? "" : ",")
                    .append("{\"op\":\"create_entity\",\"user_id\":\"sam\",\"entity_type\":\"part\","
                            + "\"entity_id\":\"part-")
                    .append(i)
                    .append("\",\"title\":\"Part ")
                    .append(i)
                    .append("\"}");
        }
        root.ok("write", "{\"rationale\":\"many parts\",\"actor\":\"agent-7\",\"ops\":[" + ops + "]}");
        java.util.List<String> all = new java.util.ArrayList<>();
        root.ok("files", null).path("files").forEach(f -> all.add(f.asText()));
        assertTrue(all.size() > 50, "more files than a page holds: " + all.size());
        Browserless b = new Browserless(root);
        b.login();
        String first = b.get("/files").body();
        String second = b.get("/files?page=2").body();
        for (int i = 0; i < all.size(); i++) {
            String link = "href=\"/file?path=" + all.get(i).replace("/", "%2F") + "\"";
            assertEquals(i < 50, first.contains(link), all.get(i) + " on the first page");
            assertEquals(i >= 50, second.contains(link), all.get(i) + " on the second page");
        }
        assertTrue(
                first.contains("page 1 of 2 (" + all.size() + " in all)") && first.contains("href=\"/files?page=2\""),
                first);
        assertEquals(200, b.get("/file?path=" + all.get(all.size() - 1)).statusCode());
    }

    @Test
    void aSectionsHistory_pagesFiftyEventsAPage_endingWithTheImport() throws Exception {
        root = new ConsoleRoot(tmp).serve();
        for (int i = 0; i < 52; i++) {
            root.ok(
                    "write",
                    "{\"rationale\":\"step " + i
                            + "\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"replace_section\",\"path\":\""
                            + ConsoleRoot.YOUNG + "\",\"section\":\"Evolution\",\"content\":\"Version " + i + ".\"}]}");
        }
        Browserless b = new Browserless(root);
        b.login();
        String base = "/file/section?path=" + ConsoleRoot.YOUNG + "&section=evolution";
        String first = b.get(base).body();
        String second = b.get(base + "&page=2").body();
        assertTrue(first.contains("step 51") && first.contains("step 2") && !first.contains("step 1<"), first);
        assertTrue(first.contains("page 1 of 2 (53 in all)"), first);
        assertTrue(
                second.contains("step 1<") && second.contains("step 0<") && second.contains("<td>human_edit</td>"),
                second);
    }

    @Test
    void theLedgerPage_showsWhenItWasChecked_andVerifiesAgainOnRequest() throws Exception {
        root = new ConsoleRoot(tmp).serve();
        Browserless b = new Browserless(root);
        b.login();
        assertTrue(b.get("/").body().contains("lines, checked "));
        root.ok(
                "write",
                "{\"rationale\":\"one more\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"append_item\",\"path\":\""
                        + ConsoleRoot.YOUNG + "\",\"section\":\"Needs\",\"item\":\"Sleep\"}]}");
        String head = root.ok("ping", null).path("head").asText();
        long lines = root.ok("ledger.verify", null).path("lines").asLong();
        HttpResponse<String> now = b.post("/ledger/verify", form("csrf", b.csrf("/ledger")));
        assertEquals(200, now.statusCode());
        assertTrue(
                now.body().contains("Every chain verifies: " + lines + " lines.")
                        && now.body().contains(head),
                now.body());
        assertEquals(405, b.get("/ledger/verify").statusCode());
    }

    @Test
    void aLockByAConsoleDecidingAsAnAgent_isRefusedOnThePage_andChangesNothing() throws Exception {
        root = new ConsoleRoot(tmp).startDaemon().startConsole("agent-7");
        Browserless b = new Browserless(root);
        b.login();
        String before = root.file(ConsoleRoot.CRITIC);
        String page = "/file?path=" + ConsoleRoot.CRITIC;
        HttpResponse<String> r = b.post(
                "/file/lock",
                form(
                        "path",
                        ConsoleRoot.CRITIC,
                        "section",
                        "role",
                        "action",
                        "lock",
                        "note",
                        "mine",
                        "csrf",
                        b.csrf(page)));
        assertEquals(403, r.statusCode(), "what only a person may do: one status on every page");
        assertTrue(
                r.body().contains("sections.lock refused: prohibited: only a user locks or unlocks sections"),
                r.body());
        assertTrue(r.body().contains("id=\"lock-role\""), "the file is shown again, unlocked");
        assertEquals(before, root.file(ConsoleRoot.CRITIC));
        assertEquals(
                400,
                b.post(
                                "/file/lock",
                                form(
                                        "path",
                                        ConsoleRoot.CRITIC,
                                        "section",
                                        "role",
                                        "action",
                                        "pin",
                                        "csrf",
                                        b.csrf(page)))
                        .statusCode());
    }

    @Test
    void anEventsPage_namesItsCommit_andLinksItsEvidence() throws Exception {
        root = new ConsoleRoot(tmp).serve();
        JsonNode cited = root.ok(
                "write",
                "{\"rationale\":\"heard it\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"append_item\"," + "\"path\":\""
                        + ConsoleRoot.YOUNG + "\",\"section\":\"Needs\",\"item\":\"Quiet mornings\"}]}");
        String evidence = cited.at("/events/0/token").asText();
        JsonNode w = root.ok(
                "write",
                "{\"rationale\":\"from the notes\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"append_item\","
                        + "\"path\":\"" + ConsoleRoot.YOUNG
                        + "\",\"section\":\"Triggers\",\"item\":\"Early alarms\",\"evidence_refs\":[\""
                        + evidence + "\"]}]}");
        Browserless b = new Browserless(root);
        b.login();
        String page = b.get("/event?token=" + w.at("/events/0/token").asText()).body();
        assertTrue(page.contains("<code class=\"commit\">" + w.path("commit").asText() + "</code>"), page);
        assertTrue(
                page.contains(
                        "evidence: <a href=\"/event?token=" + evidence.replace(":", "%3A") + "\">" + evidence + "</a>"),
                page);
        String cause = b.get("/event?token=" + evidence).body();
        assertTrue(
                cause.contains("<code class=\"commit\">" + cited.path("commit").asText() + "</code>"), cause);
    }

    @Test
    void aSectionsHistory_linksEachEventToTheDiffItMade_theHumansEditToo() throws Exception {
        root = new ConsoleRoot(tmp).serve();
        root.ok(
                "write",
                "{\"rationale\":\"reframe\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"replace_section\",\"path\":\""
                        + ConsoleRoot.YOUNG
                        + "\",\"section\":\"Role\",\"content\":\"An exile who reads aloud badly.\"}]}");
        root.humanEdit(ConsoleRoot.YOUNG, "An exile who reads aloud badly.", "An exile, and brave.");
        Browserless b = new Browserless(root);
        b.login();
        String history = b.get("/file/section?path=" + ConsoleRoot.YOUNG + "&section=role")
                .body();
        Matcher m = Pattern.compile("href=\"(/file/section/change\\?[^\"]+)\">diff</a>")
                .matcher(history);
        java.util.List<String> links = new java.util.ArrayList<>();
        while (m.find()) {
            links.add(m.group(1).replace("&amp;", "&"));
        }
        assertEquals(3, links.size(), "the human's edit, the agent's write, the import: " + history);
        String human = b.get(links.get(0)).body();
        assertTrue(human.contains("<b>human_edit</b>"), human);
        assertTrue(
                human.contains("-An exile who reads aloud badly.") && human.contains("+An exile, and brave."), human);
        String agent = b.get(links.get(1)).body();
        assertTrue(
                agent.contains("<b>replace_section</b> by agent-7")
                        && agent.contains("+An exile who reads aloud badly.")
                        && agent.contains("-Exile. Carries the memory"),
                agent);
    }

    @Test
    void withoutActor_decisionsAreRecordedAsTheRootsGitIdentity() throws Exception {
        root = new ConsoleRoot(tmp);
        root.git("config", "user.name", "Sam Example");
        root.git("config", "user.email", "sam@example.com");
        root.startDaemon().startConsole(ConsoleActor.of(root.dir));
        root.humanEdit(ConsoleRoot.YOUNG, "## Role\n", "## Job\n");
        String id = root.driftIds().get(0);
        Browserless b = new Browserless(root);
        b.login();
        HttpResponse<String> r = b.post(
                "/drift/resolve",
                form("id", id, "resolution", "dismiss", "note", "fine", "csrf", b.csrf("/drift/item?id=" + id)));
        assertEquals(303, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Location").orElse("").startsWith("/drift?done="));
        assertTrue(root.driftIds().isEmpty());
        JsonNode e = root.ok("history", "{\"path\":\"" + ConsoleRoot.YOUNG + "\",\"limit\":1}")
                .path("events")
                .get(0);
        assertEquals("drift_resolved", e.path("op").asText());
        assertEquals("human:Sam Example <sam@example.com>", e.path("actor").asText());
        assertEquals(
                "Sam Example <sam@example.com>",
                root.git("log", "-1", "--format=%an <%ae>").strip());
    }

    @Test
    void aRefusedDecision_showsTheDaemonsReason_onTheItemAgain() throws Exception {
        root = new ConsoleRoot(tmp).serve();
        root.humanEdit(ConsoleRoot.CRITIC, "## Role\n", "## Job\n");
        String id = root.driftIds().get(0);
        Browserless b = new Browserless(root);
        b.login();
        HttpResponse<String> r = b.post(
                "/drift/resolve",
                form(
                        "id",
                        id,
                        "resolution",
                        "reanchor",
                        "from",
                        "Job",
                        "to",
                        "Nope",
                        "csrf",
                        b.csrf("/drift/item?id=" + id)));
        assertEquals(404, r.statusCode(), "a section that does not exist: one status on every page");
        assertTrue(r.body().contains("unknown_section") && r.body().contains("form-reanchor"), r.body());
        assertFalse(root.driftIds().isEmpty(), "nothing resolved");
        // an item that does not exist was 409 here and 404 on the proposals page
        HttpResponse<String> gone = b.post(
                "/drift/resolve", form("id", "NOPE", "resolution", "dismiss", "csrf", b.csrf("/drift/item?id=" + id)));
        assertEquals(404, gone.statusCode(), gone.body());
        assertTrue(gone.body().contains("not_found"), gone.body());
    }
}
