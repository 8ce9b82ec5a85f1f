package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Governance (file-grammar §13): locks and proposals, through the socket with the real git CLI. */
class ProposalTest extends ServedRootTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    private void mark(String yaml) throws Exception {
        String t = root.file(CRITIC);
        Files.writeString(
                root.dir.resolve(CRITIC), t.replace("    last_updated:", "    " + yaml + "\n    last_updated:"));
        assertTrue(root.call("capture", null).get("result").get("captured").asBoolean());
    }

    private JsonNode replaceRole(String content) throws Exception {
        return root.call(
                "write",
                "{\"rationale\":\"reframe\",\"actor\":\"agent-7\",\"ops\":[{\"op\":\"replace_section\",\"path\":\""
                        + CRITIC + "\",\"section\":\"Role\",\"content\":\"" + content + "\"}]}");
    }

    @Test
    void lockedSection_refusesAgents_withSectionLocked_andChangesNothing() throws Exception {
        mark("locked_sections: [role]");
        String before = root.file(CRITIC);
        long lines = root.call("ledger.verify", null).get("result").get("lines").asLong();
        JsonNode r = replaceRole("Mine now.");
        assertEquals("section_locked", r.get("error").get("data").get("reason").asText(), r.toString());
        assertEquals(before, root.file(CRITIC));
        assertEquals(
                lines,
                root.call("ledger.verify", null).get("result").get("lines").asLong());
    }

    @Test
    void reviewSection_sendsTheWriteToAProposalBranch_acceptMergesIt() throws Exception {
        mark("review_sections: [role]");
        String before = root.file(CRITIC);
        JsonNode r = replaceRole("A guard who wants rest.");
        assertTrue(r.has("result"), r.toString());
        String id = r.get("result").get("proposal").asText();
        assertEquals(before, root.file(CRITIC), "the branch is not changed by a proposal");
        String onBranch = root.git("show", "proposals/" + id + ":" + CRITIC);
        assertTrue(onBranch.contains("A guard who wants rest."), onBranch);
        // a proposal branch has no chain: its history is refused saying so, not answered empty
        JsonNode h = root.call("history", "{\"path\":\"" + CRITIC + "\",\"branch\":\"proposals/" + id + "\"}");
        assertEquals("invalid_request", h.at("/error/data/reason").asText(), h.toString());
        assertTrue(h.at("/error/message").asText().contains("has no ledger chain here"), h.toString());
        JsonNode list = root.call("proposals.list", null).get("result").get("items");
        assertEquals(1, list.size());
        assertEquals("open", list.get(0).get("status").asText());
        assertEquals("agent-7", list.get(0).get("actor").asText());

        // an unrelated human edit meanwhile does not block the acceptance
        String t = root.file(CRITIC);
        Files.writeString(root.dir.resolve(CRITIC), t.replace("strict teacher", "strict, tired teacher"));

        JsonNode a = root.call("proposals.accept", "{\"id\":\"" + id + "\"}");
        assertTrue(a.has("result"), a.toString());
        String after = root.file(CRITIC);
        assertTrue(after.contains("A guard who wants rest.") && after.contains("strict, tired teacher"), after);
        String parents = root.git("log", "-1", "--format=%P").strip();
        assertEquals(2, parents.split(" ").length, "acceptance is a merge commit: " + parents);
        assertTrue(parents.contains(root.git("rev-parse", "proposals/" + id).strip()));
        assertEquals(
                "accepted",
                root.call("proposals.show", "{\"id\":\"" + id + "\"}")
                        .get("result")
                        .get("status")
                        .asText());
        assertEquals(
                "conflict",
                root.call("proposals.accept", "{\"id\":\"" + id + "\"}")
                        .get("error")
                        .get("data")
                        .get("reason")
                        .asText());
        assertTrue(
                root.call("replay", "{\"verify\":true}").get("result").get("ok").asBoolean());
    }

    /**
     * A proposal waits for a person, and so does a drift item: an agent (any other client, over MCP
     * as "agent-x") accepted its own proposal and resolved drift, bypassing the review. Decided with
     * no actor, they are recorded as the person the root's git identity names.
     */
    @Test
    void onlyAPersonAcceptsOrRejectsAProposalOrResolvesDrift_andNoActorMeansTheRootsGitIdentity() throws Exception {
        mark("review: true");
        String id = replaceRole("Proposed by an agent.")
                .get("result")
                .get("proposal")
                .asText();
        String head = root.git("rev-parse", "HEAD").strip();
        for (String method : List.of("proposals.accept", "proposals.reject")) {
            JsonNode r = root.call(method, "{\"id\":\"" + id + "\",\"actor\":\"agent-x\"}");
            assertEquals("prohibited", r.at("/error/data/reason").asText(), method + ": " + r);
            assertTrue(r.at("/error/message").asText().contains("not 'agent-x'"), r.toString());
        }
        assertEquals(head, root.git("rev-parse", "HEAD").strip(), "nothing decided");
        assertEquals(
                "open",
                root.call("proposals.show", "{\"id\":\"" + id + "\"}")
                        .at("/result/status")
                        .asText());

        Files.writeString(root.dir.resolve(CRITIC), root.file(CRITIC).replace("## Role\n", "## Job\n"));
        root.call("capture", null);
        String drift = root.firstDriftId();
        JsonNode d = root.call(
                "drift.resolve", "{\"id\":\"" + drift + "\",\"resolution\":\"restore\",\"actor\":\"agent-y\"}");
        assertEquals("prohibited", d.at("/error/data/reason").asText(), d.toString());
        assertTrue(root.file(CRITIC).contains("## Job\n"), "the human's text stays");

        String person = "human:" + root.git("config", "user.name").strip() + " <"
                + root.git("config", "user.email").strip() + ">";
        assertTrue(root.call("drift.resolve", "{\"id\":\"" + drift + "\",\"resolution\":\"restore\"}")
                .has("result"));
        JsonNode a = root.call("proposals.accept", "{\"id\":\"" + id + "\",\"note\":\"Sam agrees\"}");
        assertTrue(a.has("result"), a.toString());
        JsonNode shown = root.call("proposals.show", "{\"id\":\"" + id + "\"}").get("result");
        assertEquals(person, shown.get("closed_by").asText());
        assertEquals("Sam agrees", shown.get("note").asText(), "an acceptance keeps its note, as a rejection does");
    }

    @Test
    void accept_afterTheHumanChangedTheSameSection_isConflict_rejectIsRecorded() throws Exception {
        mark("review: true");
        JsonNode r = replaceRole("Proposed role.");
        String id = r.get("result").get("proposal").asText();
        String t = root.file(CRITIC);
        Files.writeString(root.dir.resolve(CRITIC), t.replace("Protector.", "Protector, says Sam."));
        root.call("capture", null);
        JsonNode a = root.call("proposals.accept", "{\"id\":\"" + id + "\"}");
        assertEquals("conflict", a.get("error").get("data").get("reason").asText(), a.toString());
        assertEquals("role", a.get("error").get("data").get("section").asText());
        assertFalse(root.file(CRITIC).contains("Proposed role."));
        JsonNode rej = root.call("proposals.reject", "{\"id\":\"" + id + "\",\"note\":\"Sam rewrote it himself\"}");
        assertTrue(rej.has("result"), rej.toString());
        JsonNode shown = root.call("proposals.show", "{\"id\":\"" + id + "\"}").get("result");
        assertEquals("rejected", shown.get("status").asText());
        assertEquals("Sam rewrote it himself", shown.get("note").asText());
        assertFalse(root.git("rev-parse", "proposals/" + id).isBlank(), "the branch stays in history");
        assertEquals(
                0, root.call("proposals.list", null).get("result").get("items").size());
        assertEquals(
                "not_found",
                root.call("proposals.accept", "{\"id\":\"nope\"}")
                        .get("error")
                        .get("data")
                        .get("reason")
                        .asText());
        // the book survives a restart
        root.daemon.close();
        root.serve();
        assertEquals(
                "rejected",
                root.call("proposals.show", "{\"id\":\"" + id + "\"}")
                        .get("result")
                        .get("status")
                        .asText());
        assertTrue(
                root.call("replay", "{\"verify\":true}").get("result").get("ok").asBoolean());
        assertTrue(PayloadLines.assertTyped(root.dir) > 0, "every line recorded, read back typed, parses");
    }
}
