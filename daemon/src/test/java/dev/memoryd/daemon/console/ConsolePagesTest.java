package dev.memoryd.daemon.console;

import static dev.memoryd.daemon.console.Browserless.form;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What the pages show and what a decision records, over plain HTTP against a real console and daemon. */
@Timeout(120)
class ConsolePagesTest {
  @TempDir Path tmp;
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
    assertTrue(page.contains("<a href=\"/drift\">1 open</a>") && page.contains("<a href=\"/proposals\">1 open</a>"), page);
    assertTrue(page.contains("verified"), page);
  }

  @Test
  void aFilePage_showsEachSectionsLastChange_fromItsAgentWrite_orTheHumansImport() throws Exception {
    root = new ConsoleRoot(tmp).serve();
    root.ok("write", "{\"rationale\":\"it said so\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"append_item\",\"path\":\""
        + ConsoleRoot.YOUNG + "\",\"section\":\"Needs\",\"item\":\"Quiet mornings\"}]}");
    Browserless b = new Browserless(root);
    b.login();
    String page = b.get("/file?path=" + ConsoleRoot.YOUNG).body();
    String needs = page.substring(page.indexOf("id=\"needs\""));
    needs = needs.substring(0, needs.indexOf("</section>"));
    assertTrue(needs.contains("<b>append_item</b> by agent-7") && needs.contains("it said so") && needs.contains("Quiet mornings"), needs);
    String identity = page.substring(page.indexOf("id=\"identity\""));
    identity = identity.substring(0, identity.indexOf("</section>"));
    assertTrue(identity.contains("<b>human_edit</b>"), identity);
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
    HttpResponse<String> r = b.post("/drift/resolve", form("id", id, "resolution", "dismiss", "note", "fine",
        "csrf", b.csrf("/drift/item?id=" + id)));
    assertEquals(303, r.statusCode(), r.body());
    assertTrue(r.headers().firstValue("Location").orElse("").startsWith("/drift?done="));
    assertTrue(root.driftIds().isEmpty());
    JsonNode e = root.ok("history", "{\"path\":\"" + ConsoleRoot.YOUNG + "\",\"limit\":1}").path("events").get(0);
    assertEquals("drift_resolved", e.path("op").asText());
    assertEquals("human:Sam Example <sam@example.com>", e.path("actor").asText());
    assertEquals("Sam Example <sam@example.com>", root.git("log", "-1", "--format=%an <%ae>").strip());
  }

  @Test
  void aRefusedDecision_showsTheDaemonsReason_onTheItemAgain() throws Exception {
    root = new ConsoleRoot(tmp).serve();
    root.humanEdit(ConsoleRoot.CRITIC, "## Role\n", "## Job\n");
    String id = root.driftIds().get(0);
    Browserless b = new Browserless(root);
    b.login();
    HttpResponse<String> r = b.post("/drift/resolve", form("id", id, "resolution", "reanchor", "from", "Job", "to", "Nope",
        "csrf", b.csrf("/drift/item?id=" + id)));
    assertEquals(409, r.statusCode());
    assertTrue(r.body().contains("unknown_section") && r.body().contains("form-reanchor"), r.body());
    assertFalse(root.driftIds().isEmpty(), "nothing resolved");
  }
}
