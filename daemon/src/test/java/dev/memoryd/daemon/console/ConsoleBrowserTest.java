package dev.memoryd.daemon.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console end to end in a real headless Chromium: a human's edits made by hand become drift
 * that is resolved in the browser with each resolution, proposals are accepted and rejected, and
 * the ledger events, commits and files afterwards are checked from outside (the socket, plain
 * git). Each page is saved as a screenshot under {@code target/console-screenshots/}.
 */
@Timeout(300)
class ConsoleBrowserTest {
    private static final Pattern COMMIT = Pattern.compile("in commit ([0-9a-f]{40})");

    static HeadlessChromium browser;

    @TempDir
    Path tmp;

    ConsoleRoot root;

    @BeforeAll
    static void startBrowser() throws Exception {
        browser = HeadlessChromium.start();
    }

    @AfterAll
    static void stopBrowser() throws Exception {
        if (browser != null) {
            browser.close();
        }
    }

    @BeforeEach
    void serve() throws Exception {
        root = new ConsoleRoot(tmp).serve();
    }

    @AfterEach
    void close() throws Exception {
        root.close();
    }

    /** Opens the console by its one-time URL, as its user does. */
    private void login() {
        browser.driver.get(root.loginUrls.get(root.loginUrls.size() - 1));
        assertEquals(root.base() + "/", browser.driver.getCurrentUrl());
    }

    private void open(String path) {
        browser.driver.get(root.base() + path);
    }

    private String pageText() {
        return browser.driver.findElement(By.tagName("body")).getText();
    }

    /** Fills the note of form {@code formId} on the page shown, submits it; the commit the notice names. */
    private String submit(String formId, String note) {
        WebElement form = fillAndClick(formId, note);
        // The click returns once the POST is sent; wait for the page it answers to replace this one.
        new WebDriverWait(browser.driver, java.time.Duration.ofSeconds(60)).until(d -> replaced(form));
        java.util.List<WebElement> notices = browser.driver.findElements(By.cssSelector(".notice"));
        assertFalse(notices.isEmpty(), "no notice after submitting " + formId + ": " + pageText());
        String notice = notices.get(0).getText();
        Matcher m = COMMIT.matcher(notice);
        assertTrue(m.find(), "the page says which commit the decision made: " + notice);
        return m.group(1);
    }

    /**
     * Whether {@code form}'s page was replaced. Selenium's {@code stalenessOf} knows only the stale
     * element error; chromedriver also answers a node of a replaced page with "Node with given id
     * does not belong to the document", which says the same and made a submit fail under load.
     */
    private static boolean replaced(WebElement form) {
        try {
            form.isEnabled();
            return false;
        } catch (org.openqa.selenium.StaleElementReferenceException e) {
            return true;
        } catch (org.openqa.selenium.WebDriverException e) {
            if (String.valueOf(e.getMessage()).contains("does not belong to the document")) {
                return true;
            }
            throw e;
        }
    }

    /**
     * Fills the note of form {@code formId} and clicks its button; the form clicked. Chromedriver
     * sometimes loses a freshly loaded page's node ids between finding an element and checking it
     * before the click ("Node with given id does not belong to the document"); nothing was sent
     * then, the form is still on the page, so it is found again and filled afresh.
     */
    private WebElement fillAndClick(String formId, String note) {
        String page = browser.driver.getCurrentUrl();
        for (int attempt = 1; ; attempt++) {
            WebElement form = browser.driver.findElement(By.id(formId));
            try {
                WebElement field = form.findElement(By.name("note"));
                field.clear();
                field.sendKeys(note);
                form.findElement(By.tagName("button")).click();
                return form;
            } catch (org.openqa.selenium.StaleElementReferenceException e) {
                retryOrThrow(attempt, page, e);
            } catch (org.openqa.selenium.WebDriverException e) {
                if (!String.valueOf(e.getMessage()).contains("does not belong to the document")) {
                    throw e;
                }
                retryOrThrow(attempt, page, e);
            }
        }
    }

    private void retryOrThrow(int attempt, String page, RuntimeException e) {
        boolean untouched = page.equals(browser.driver.getCurrentUrl())
                && browser.driver.findElements(By.cssSelector(".notice")).isEmpty();
        if (attempt >= 3 || !untouched) {
            throw e;
        }
    }

    /** The {@code drift_resolved} event of item {@code id} in {@code path}'s history. */
    private JsonNode resolvedEvent(String path, String id) throws Exception {
        for (JsonNode e :
                root.ok("history", "{\"path\":\"" + path + "\",\"limit\":50}").path("events")) {
            if (e.path("op").asText().equals("drift_resolved")
                    && e.at("/payload/drift/id").asText().equals(id)) {
                return e;
            }
        }
        throw new AssertionError("no drift_resolved event for " + id + " in " + path);
    }

    private void assertDecidedAsTheConsolesActor(String commit, String note) throws Exception {
        String shown = root.git("show", "-s", "--format=%an <%ae>%n%B", commit);
        assertTrue(shown.startsWith("Console Tester <tester@example.com>"), shown);
        assertTrue(shown.contains("Memoryd-Actor: " + ConsoleRoot.ACTOR), shown);
        assertTrue(shown.contains(note), shown);
    }

    @Test
    void driftMadeByHand_isResolvedInTheBrowser_withEachResolution() throws Exception {
        String overview = "users/sam/overview.md";
        String relation = "users/sam/relationships/critic-protects-young-one/profile.md";
        String young = root.file(ConsoleRoot.YOUNG);
        String critic = root.file(ConsoleRoot.CRITIC);
        root.humanEdit(
                ConsoleRoot.CRITIC,
                critic.substring(critic.indexOf("## Change Log"), critic.indexOf("## Extensions")),
                "");
        root.humanEdit(ConsoleRoot.YOUNG, "## Needs\n<!-- @anchor: needs v1 -->\n", "## Things it needs (my words)\n");
        root.humanEdit(overview, "## Current Focus\n", "## Focus Now\n");
        root.humanEdit(relation, "## Type\n", "## Kind\n");
        assertEquals(4, root.driftIds().size());

        login();
        assertTrue(pageText().contains("4 open"), pageText());
        browser.screenshot("overview");
        open("/drift");
        assertTrue(pageText().contains("grammar_broken") && pageText().contains(overview), pageText());
        browser.screenshot("drift-list");

        String accepted = idFor(ConsoleRoot.CRITIC);
        open("/drift/item?id=" + accepted);
        assertTrue(
                browser.driver
                        .findElement(By.cssSelector("pre.diff .del"))
                        .getText()
                        .contains("## Change Log"),
                "the diff shows what the human removed");
        browser.screenshot("drift-item");
        String commit = submit("form-accept_current", "the change log moves to git");
        assertEquals(
                "accept_current",
                resolvedEvent(ConsoleRoot.CRITIC, accepted)
                        .at("/payload/drift/resolution")
                        .asText());
        assertFalse(root.file(ConsoleRoot.CRITIC).contains("## Change Log"), "accepted as the human left it");
        assertDecidedAsTheConsolesActor(commit, "the change log moves to git");

        String restored = idFor(ConsoleRoot.YOUNG);
        open("/drift/item?id=" + restored);
        commit = submit("form-restore", "keep the canonical heading");
        assertEquals(young, root.file(ConsoleRoot.YOUNG), "restore puts the recorded text back");
        JsonNode e = resolvedEvent(ConsoleRoot.YOUNG, restored);
        assertEquals(ConsoleRoot.ACTOR, e.path("actor").asText());
        assertEquals("keep the canonical heading", e.at("/payload/drift/note").asText());
        assertDecidedAsTheConsolesActor(commit, "keep the canonical heading");

        String reanchored = idFor(overview);
        open("/drift/item?id=" + reanchored);
        WebElement form = browser.driver.findElement(By.id("form-reanchor"));
        new Select(form.findElement(By.name("from"))).selectByVisibleText("Focus Now");
        new Select(form.findElement(By.name("to"))).selectByVisibleText("Current Focus");
        commit = submit("form-reanchor", "renamed back");
        assertTrue(
                root.file(overview).contains("## Current Focus\n<!-- @anchor: current-focus v1 -->"),
                root.file(overview));
        assertEquals(
                "reanchor",
                resolvedEvent(overview, reanchored)
                        .at("/payload/drift/resolution")
                        .asText());
        assertDecidedAsTheConsolesActor(commit, "renamed back");

        String dismissed = idFor(relation);
        open("/drift/item?id=" + dismissed);
        commit = submit("form-dismiss", "Kind is fine for now");
        assertTrue(root.file(relation).contains("## Kind\n"), "dismiss leaves the file as it is");
        assertEquals(
                "dismiss",
                resolvedEvent(relation, dismissed)
                        .at("/payload/drift/resolution")
                        .asText());
        assertDecidedAsTheConsolesActor(commit, "Kind is fine for now");

        assertTrue(root.driftIds().isEmpty());
        assertTrue(pageText().contains("No open drift"), pageText());
        assertTrue(root.ok("ledger.verify", null).path("ok").asBoolean());
        open("/ledger");
        assertTrue(pageText().contains("Every chain verifies"), pageText());
        browser.screenshot("ledger");
    }

    private String idFor(String path) throws Exception {
        for (JsonNode i : root.ok("drift.list", null).path("items")) {
            if (i.path("path").asText().equals(path)) {
                return i.path("id").asText();
            }
        }
        throw new AssertionError("no drift item for " + path);
    }

    @Test
    void oneProposalIsAccepted_andAnotherRejected_inTheBrowser() throws Exception {
        String evidence = root.ok(
                        "write",
                        "{\"rationale\":\"session notes\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"append_item\","
                                + "\"path\":\"" + ConsoleRoot.CRITIC
                                + "\",\"section\":\"Triggers\",\"item\":\"Late-night reviews\"}]}")
                .at("/events/0/token")
                .asText();
        root.humanEdit(
                ConsoleRoot.CRITIC, "    last_updated:", "    review_sections: [role, concerns]\n    last_updated:");
        String accept = root.propose("Role", "A guard who wants rest.", "the critic said it is tired", evidence);
        String reject = root.propose("Concerns", "Nothing at all.", "a guess", null);

        login();
        open("/proposals");
        assertTrue(pageText().contains(accept) && pageText().contains(reject), pageText());
        browser.screenshot("proposals-list");
        open("/proposals/item?id=" + accept);
        String text = pageText();
        assertTrue(text.contains("the critic said it is tired"), text);
        assertTrue(
                text.contains("append_item by agent-7") && text.contains("session notes"),
                "the evidence token resolved: " + text);
        assertTrue(browser.driver
                .findElement(By.cssSelector("pre.diff .add"))
                .getText()
                .contains("A guard who wants rest."));
        browser.screenshot("proposal-item");
        String merged = submit("form-accept", "yes, it is tired");

        open("/proposals/item?id=" + reject);
        String rejected = submit("form-reject", "no evidence for it");

        assertTrue(root.file(ConsoleRoot.CRITIC).contains("A guard who wants rest."));
        assertFalse(root.file(ConsoleRoot.CRITIC).contains("Nothing at all."));
        assertEquals(
                2, root.git("show", "-s", "--format=%P", merged).strip().split(" ").length, "acceptance is a merge");
        assertDecidedAsTheConsolesActor(merged, "yes, it is tired");
        assertDecidedAsTheConsolesActor(rejected, "no evidence for it");
        JsonNode a = root.ok("proposals.show", "{\"id\":\"" + accept + "\"}");
        JsonNode r = root.ok("proposals.show", "{\"id\":\"" + reject + "\"}");
        assertEquals("accepted", a.path("status").asText());
        assertEquals(ConsoleRoot.ACTOR, a.path("closed_by").asText());
        assertEquals("rejected", r.path("status").asText());
        assertEquals("no evidence for it", r.path("note").asText());
        assertTrue(root.ok("replay", "{\"verify\":true}").path("ok").asBoolean());
    }

    @Test
    void aSectionIsLockedAndUnlocked_inTheBrowser_andAnAgentIsRefusedMeanwhile() throws Exception {
        login();
        open("/file?path=" + ConsoleRoot.CRITIC);
        assertTrue(browser.driver.findElements(By.cssSelector("section.locked")).isEmpty());
        String locked = submit("lock-role", "the role is mine to describe");
        assertEquals(
                "locked",
                browser.driver
                        .findElement(By.cssSelector("section#role.locked h2 .lock"))
                        .getText());
        assertEquals(
                1, browser.driver.findElements(By.cssSelector("section.locked")).size());
        assertTrue(
                browser.driver
                        .findElement(By.cssSelector("section#role"))
                        .getText()
                        .contains("section_lock by " + ConsoleRoot.ACTOR),
                "the lock is the section's last change");
        browser.screenshot("file-locked");
        assertDecidedAsTheConsolesActor(locked, "the role is mine to describe");
        assertTrue(
                root.file(ConsoleRoot.CRITIC).contains("    locked_sections: [role]\n"), root.file(ConsoleRoot.CRITIC));
        JsonNode refused = root.call(
                "write",
                "{\"rationale\":\"reframe\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"replace_section\"," + "\"path\":\""
                        + ConsoleRoot.CRITIC + "\",\"section\":\"Role\",\"content\":\"Mine now.\"}]}");
        assertEquals("section_locked", refused.at("/error/data/reason").asText(), refused.toString());

        String unlocked = submit("unlock-role", "open again");
        assertTrue(browser.driver.findElements(By.cssSelector("section.locked")).isEmpty());
        assertDecidedAsTheConsolesActor(unlocked, "open again");
        assertFalse(root.file(ConsoleRoot.CRITIC).contains("locked_sections"));
        assertTrue(root.ok("replay", "{\"verify\":true}").path("ok").asBoolean());
    }

    /** Runs git in {@code dir}; its output. */
    private static String git(Path dir, String... args) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("git", "-C", dir.toString()));
        cmd.addAll(java.util.List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "git " + String.join(" ", args) + ": " + out);
        return out;
    }

    @Test
    void aChangedFileReference_isRepinned_andADeletedOneRetired_inTheBrowser() throws Exception {
        Path code = tmp.resolve("code");
        java.nio.file.Files.createDirectories(code);
        git(code, "init", "-q", "-b", "main");
        git(code, "config", "user.name", "Ada Lovelace");
        git(code, "config", "user.email", "ada@example.com");
        java.nio.file.Files.writeString(code.resolve("engine.txt"), "difference engine\n");
        java.nio.file.Files.writeString(code.resolve("notes.txt"), "notes\n");
        git(code, "add", "-A");
        git(code, "commit", "-q", "-m", "first");
        String overview = "users/sam/overview.md";
        String engine = root.ok(
                        "refs.add",
                        "{\"path\":\"engine.txt\",\"repo\":\"" + code + "\",\"placed_on\":\"" + overview + "\"}")
                .path("id")
                .asText();
        String notes = root.ok(
                        "refs.add",
                        "{\"path\":\"notes.txt\",\"repo\":\"" + code + "\",\"placed_on\":\"" + overview + "\"}")
                .path("id")
                .asText();
        java.nio.file.Files.writeString(code.resolve("engine.txt"), "analytical engine\n");
        git(code, "rm", "-q", "notes.txt");
        git(code, "commit", "-q", "-am", "the engine grows; no more notes");
        JsonNode findings = root.ok("refs.reconcile", "{}").path("findings");
        assertEquals(2, findings.size(), findings.toString());
        String changedItem = null;
        String deletedItem = null;
        for (JsonNode f : findings) {
            if (f.path("id").asText().equals(engine)) {
                assertEquals("ref_changed", f.path("kind").asText());
                changedItem = f.path("drift_id").asText();
            } else {
                assertEquals(notes, f.path("id").asText());
                assertEquals("ref_deleted", f.path("kind").asText());
                deletedItem = f.path("drift_id").asText();
            }
        }

        login();
        open("/drift/item?id=" + changedItem);
        assertTrue(pageText().contains("ref_changed"), pageText());
        browser.screenshot("drift-ref-item");
        String repinned = submit("form-repin", "the engine grew, keep following it");
        assertDecidedAsTheConsolesActor(repinned, "the engine grew, keep following it");
        open("/drift/item?id=" + deletedItem);
        String retired = submit("form-retire", "the notes are gone");
        assertDecidedAsTheConsolesActor(retired, "the notes are gone");

        assertTrue(root.driftIds().isEmpty());
        assertTrue(root.file(".slices/" + notes + ".slice").contains("retired_at:"));
        JsonNode again = root.ok("refs.reconcile", "{}");
        assertEquals(1, again.path("checked").asInt(), "the retired reference is no longer checked: " + again);
        assertTrue(again.path("findings").isEmpty(), "the re-pinned reference matches the file now: " + again);
        assertTrue(root.ok("replay", "{\"verify\":true}").path("ok").asBoolean());
    }

    @Test
    void anAgentsScriptInASection_isShownAsText_andNeverRuns() throws Exception {
        String script = "xylophone <script>document.title='owned';window.ownedByAgent=1</script>";
        JsonNode w = root.ok(
                "write",
                "{\"rationale\":\"quote it\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"append_item\",\"path\":\""
                        + ConsoleRoot.YOUNG + "\",\"section\":\"Needs\",\"item\":\"" + script.replace("'", "\\u0027")
                        + "\"}]}");
        login();
        for (String path : new String[] {
            "/file?path=" + ConsoleRoot.YOUNG,
            "/file/section?path=" + ConsoleRoot.YOUNG + "&section=needs",
            "/search?q=xylophone",
            "/event?token=" + w.at("/events/0/token").asText()
        }) {
            open(path);
            assertTrue(pageText().contains(script), path + " shows the script as text: " + pageText());
            assertTrue(browser.driver.findElements(By.tagName("script")).isEmpty(), path + " has a script element");
            assertFalse(browser.driver.getTitle().contains("owned"), path);
            assertNull(browser.driver.executeScript("return window.ownedByAgent;"), path + " ran the agent's script");
        }
        open("/file?path=" + ConsoleRoot.YOUNG);
        browser.screenshot("file");
        open("/file/section?path=" + ConsoleRoot.YOUNG + "&section=needs");
        browser.screenshot("section-history");
        open("/search?q=xylophone");
        browser.screenshot("search");
        open("/event?token=" + w.at("/events/0/token").asText());
        browser.screenshot("event");
    }
}
