package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.Test;

/** declare / scope / traverse / search over chunks, through the served daemon and its real socket. */
class SubstrateTest extends ServedRootTest {

    private JsonNode declare(String json) throws Exception {
        return root.call("declare", json.replace('\'', '"'));
    }

    private JsonNode okQuoted(String method, String json) throws Exception {
        JsonNode r = root.call(method, json.replace('\'', '"'));
        assertTrue(r.has("result"), r.toString());
        return r.get("result");
    }

    private static String reason(JsonNode r) {
        return r.path("error").path("data").path("reason").asText("(no error: " + r + ")");
    }

    private static List<String> names(JsonNode scope) {
        List<String> out = new ArrayList<>();
        scope.get("chunks")
                .forEach(c -> out.add(c.path("name").asText(c.get("id").asText())));
        return out;
    }

    private int commits() throws Exception {
        try (Git g = Git.open(root.dir.toFile())) {
            int n = 0;
            for (var c : g.log().call()) {
                n++;
            }
            return n;
        }
    }

    private int ledgerLines() throws Exception {
        return okQuoted("ledger.verify", "{}").get("lines").asInt();
    }

    private void session() throws Exception {
        JsonNode r = declare(
                "{'rationale':'session archetype','chunks':[{'ref':'s','name':'session','spec':{'propagate':true,"
                        + "'ordered':true,'accepts':['prompt','answer','tool-call']},'body':{'text':'A sequence of agent interaction events'}},"
                        + "{'name':'prompt','placements':[{'scope':'s','type':'relates'}]},"
                        + "{'name':'answer','placements':[{'scope':'s','type':'relates'}]},"
                        + "{'name':'tool-call','spec':{'required':['program']},'placements':[{'scope':'s','type':'relates'}]},"
                        + "{'name':'my-session','body':{'text':'Debugging the scope algorithm'},'placements':[{'scope':'s'}]}]}");
        assertTrue(r.has("result"), r.toString());
        assertEquals(5, r.get("result").get("created").size());
    }

    @Test
    void declare_isOneCommit_scopeFindsItInSeqOrder_searchFindsBodyStrings() throws Exception {
        session();
        int before = commits();
        JsonNode r = okQuoted(
                "declare",
                "{'chunks':[{'ref':'q','body':{'text':'Why is the scope query returning duplicates?'},"
                        + "'placements':[{'scope':'my-session'},{'scope':'session/prompt'}]},"
                        + "{'ref':'a','body':{'text':'It was not filtering by zanzibarish flags.'},"
                        + "'placements':[{'scope':'my-session'},{'scope':'session/answer'}]}]}");
        assertEquals(before + 1, commits(), "one declaration, one commit");
        String q = r.get("created").get(0).get("id").asText();
        String path = r.get("created").get(0).get("path").asText();
        assertTrue(Files.exists(root.dir.resolve(path)), path);
        assertTrue(root.file(path).contains("substrate: chunk"), root.file(path));

        JsonNode s = okQuoted("scope", "{'scopes':['my-session']}");
        assertEquals(2, s.get("counts").get("total").asInt());
        assertEquals(q, s.get("chunks").get(0).get("id").asText());
        assertEquals(
                1, s.get("chunks").get(0).get("placements").get(0).get("seq").asInt());
        assertEquals(path, s.get("chunks").get(0).get("file").asText());
        assertEquals(root.cfg.branch(), s.get("chunks").get(0).get("branch").asText());

        JsonNode inter = okQuoted("scope", "{'scopes':['my-session','session/answer']}");
        assertEquals(1, inter.get("counts").get("total").asInt());
        JsonNode neg = okQuoted("scope", "{'scopes':['my-session'],'minus':['session/answer']}");
        assertEquals(q, neg.get("chunks").get(0).get("id").asText());
        JsonNode page = okQuoted("scope", "{'scopes':['my-session'],'limit':1}");
        assertEquals(2, page.get("counts").get("total").asInt(), "counts cover the whole scope");
        assertEquals(1, page.get("chunks").size());
        assertEquals(
                2,
                page.get("chunks").get(0).get("placements").get(0).get("seq").asInt(),
                "a page comes from the seq tail");

        JsonNode hits = okQuoted("search", "{'q':'zanzibarish'}").get("hits");
        assertEquals(1, hits.size(), hits.toString());
        assertEquals(
                r.get("created").get(1).get("id").asText(),
                hits.get(0).get("chunk").asText());
        JsonNode byName = okQuoted("search", "{'q':'answer'}").get("hits");
        assertTrue(byName.toString().contains("\"title\":\"answer\""), byName.toString());
    }

    @Test
    void specViolations_changeNothing_andNameTheRuleAndChunk() throws Exception {
        session();
        int commits = commits();
        int lines = ledgerLines();
        long files = Files.list(root.dir.resolve(".slices")).count();
        JsonNode r = declare("{'chunks':[{'name':'ok-one','body':{}},{'ref':'t','name':'untyped','body':{'text':'x'},"
                + "'placements':[{'scope':'my-session'}]}]}");
        assertEquals("spec_violation", reason(r));
        assertEquals("accepts", r.get("error").get("data").get("rule").asText());
        assertEquals("untyped", r.get("error").get("data").get("chunk_name").asText());
        JsonNode req = declare(
                "{'chunks':[{'body':{'text':'grep'},'placements':[{'scope':'my-session'},{'scope':'session/tool-call'}]}]}");
        assertEquals("required", req.get("error").get("data").get("rule").asText(), req.toString());
        JsonNode name = declare("{'chunks':[{'name':'my-session','placements':[{'scope':'session'}]}]}");
        assertEquals("name", name.get("error").get("data").get("rule").asText(), name.toString());
        // The documented order, in every run: reason, rule, chunk, chunk_name (when it has one), scope.
        List<String> named = List.of("reason", "rule", "chunk", "chunk_name", "scope");
        assertEquals(named, TestRoot.keys(r.get("error").get("data")), r.toString());
        assertEquals(
                List.of("reason", "rule", "chunk", "scope"),
                TestRoot.keys(req.get("error").get("data")));
        assertEquals(named, TestRoot.keys(name.get("error").get("data")), name.toString());
        for (int i = 0; i < 5; i++) {
            JsonNode again = declare("{'chunks':[{'ref':'t','name':'untyped-" + i + "','body':{'text':'x'},"
                    + "'placements':[{'scope':'my-session'}]}]}");
            assertEquals(named, TestRoot.keys(again.get("error").get("data")), again.toString());
        }
        assertEquals("not_found", reason(declare("{'chunks':[{'placements':[{'scope':'nowhere'}]}]}")));
        assertEquals("invalid_request", reason(declare("{'chunks':[{'spec':{'orderd':true}}]}")));
        assertEquals(commits, commits());
        assertEquals(lines, ledgerLines());
        assertEquals(files, Files.list(root.dir.resolve(".slices")).count());
        assertEquals(
                0,
                okQuoted("scope", "{'scopes':['my-session']}")
                        .get("counts")
                        .get("total")
                        .asInt());
    }

    @Test
    void removal_isGoneFromCurrentReads_butPresentAtAnOlderCommit() throws Exception {
        JsonNode r = okQuoted(
                "declare",
                "{'chunks':[{'ref':'t','name':'topic'},{'name':'note','body':{'text':'quokkas are plentiful'},"
                        + "'placements':[{'scope':'t'}]}]}");
        String commitBefore = r.get("commit").asText();
        String note = r.get("created").get(1).get("id").asText();
        JsonNode rm = okQuoted("declare", "{'rationale':'outdated','removals':[{'chunk':'topic/note'}]}");
        assertTrue(rm.get("changed").asBoolean());
        assertEquals(
                0,
                okQuoted("scope", "{'scopes':['topic']}")
                        .get("counts")
                        .get("total")
                        .asInt());
        assertEquals(0, okQuoted("search", "{'q':'quokkas'}").get("hits").size());
        JsonNode past = okQuoted("scope", "{'scopes':['topic'],'at':'" + commitBefore + "'}");
        assertEquals(note, past.get("chunks").get(0).get("id").asText());
        assertEquals(
                "quokkas are plentiful",
                past.get("chunks").get(0).get("body").get("text").asText());
        assertEquals(commitBefore, past.get("commit").asText());
        assertEquals("not_found", reason(root.call("scope", "{\"scopes\":[\"topic\"],\"at\":\"0000000\"}")));
        assertTrue(
                PayloadLines.assertRoundTrip(root.dir) >= 2,
                "put and removal lines, read back typed, are the same bytes");
    }

    @Test
    void memoryTree_scopeOfTwoParts_findsTheirRelationshipProfile_andTraverseFollowsIt() throws Exception {
        JsonNode s = okQuoted("scope", "{'scopes':['inner-critic','young-one']}");
        assertEquals(List.of("critic-protects-young-one"), names(s));
        assertEquals(
                "users/sam/relationships/critic-protects-young-one/profile.md",
                s.get("chunks").get(0).get("file").asText());
        JsonNode sections = okQuoted("scope", "{'scopes':['sam/inner-critic'],'limit':100}");
        JsonNode first = sections.get("chunks").get(0);
        assertEquals("identity", first.get("name").asText());
        assertEquals("Identity", first.get("section").asText());
        JsonNode t = okQuoted("traverse", "{'from':'inner-critic'}");
        assertTrue(t.get("connections").toString().contains("young-one"), t.toString());
        // A write to a memory file changes its section chunk.
        JsonNode w = root.call(
                "write",
                "{\"rationale\":\"t\",\"ops\":[{\"op\":\"replace_section\",\"path\":"
                        + "\"users/sam/parts/inner-critic/profile.md\",\"section\":\"Role\",\"content\":\"Keeps the wombat watch.\"}]}");
        assertTrue(w.has("result"), w.toString());
        JsonNode role = okQuoted("scope", "{'scopes':['inner-critic'],'limit':100}");
        assertTrue(role.toString().contains("Keeps the wombat watch."), role.toString());
        // Memory chunks are derived: declare may place onto them, not change them.
        assertEquals("prohibited", reason(declare("{'removals':[{'chunk':'inner-critic'}]}")));
        assertTrue(declare("{'chunks':[{'name':'a-note','body':{'text':'about the critic'},"
                        + "'placements':[{'scope':'inner-critic','type':'relates'}]}]}")
                .has("result"));
    }

    /** The graph is published off the writer thread; a reply must still never outrun it. */
    @Test
    void aWrittenPart_isInScopeAtOnce_andADeclarationRightAfterCanPlaceOnIt() throws Exception {
        for (int i = 0; i < 40; i++) {
            String part = "helper-" + i;
            JsonNode w = root.call(
                    "write",
                    "{\"rationale\":\"t\",\"ops\":[{\"op\":\"create_entity\",\"user_id\":\"sam\","
                            + "\"entity_type\":\"part\",\"entity_id\":\"" + part + "\",\"title\":\"Helper " + i
                            + "\"}]}");
            assertTrue(w.has("result"), w.toString());
            assertTrue(
                    names(okQuoted("scope", "{'scopes':['sam'],'limit':500}")).contains(part),
                    "scope right after write " + i);
            JsonNode d = declare(
                    "{'chunks':[{'name':'note-" + i + "','placements':[{'scope':'" + part + "','type':'relates'}]}]}");
            assertTrue(d.has("result"), "declare right after write " + i + ": " + d);
            JsonNode w2 = root.call(
                    "write",
                    "{\"rationale\":\"t\",\"ops\":[{\"op\":\"replace_section\",\"path\":" + "\"users/sam/parts/" + part
                            + "/profile.md\",\"section\":\"Role\",\"content\":\"Role number " + i + ".\"}]}");
            assertTrue(w2.has("result"), w2.toString());
            assertTrue(okQuoted("scope", "{'scopes':['" + part + "'],'limit':100}")
                    .toString()
                    .contains("Role number " + i + "."));
        }
    }

    @Test
    void concurrentDeclarations_seeEachOther_soOnlyOneNameWins() throws Exception {
        okQuoted("declare", "{'chunks':[{'name':'room'}]}");
        int n = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(n);
        try {
            List<java.util.concurrent.Future<JsonNode>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                fs.add(pool.submit(() -> declare("{'chunks':[{'name':'seat','placements':[{'scope':'room'}]}]}")));
            }
            int won = 0;
            for (java.util.concurrent.Future<JsonNode> f : fs) {
                JsonNode r = f.get();
                if (r.has("result")) {
                    won++;
                } else {
                    assertEquals("name", r.get("error").get("data").get("rule").asText(), r.toString());
                }
            }
            assertEquals(1, won);
        } finally {
            pool.shutdown();
        }
        assertEquals(
                1,
                okQuoted("scope", "{'scopes':['room']}")
                        .get("counts")
                        .get("total")
                        .asInt());
    }

    @Test
    void restart_rebuildsTheSameGraph() throws Exception {
        session();
        okQuoted(
                "declare",
                "{'chunks':[{'body':{'text':'q1'},'placements':[{'scope':'my-session'},{'scope':'session/prompt'}]}]}");
        okQuoted("declare", "{'removals':[{'chunk':'session/tool-call'}]}");
        String before = okQuoted("scope", "{'scopes':['session'],'limit':1000}")
                        .get("chunks")
                        .toString()
                + okQuoted("scope", "{'scopes':['my-session']}").get("chunks").toString();
        root.daemon.close();
        root.serve();
        String after = okQuoted("scope", "{'scopes':['session'],'limit':1000}")
                        .get("chunks")
                        .toString()
                + okQuoted("scope", "{'scopes':['my-session']}").get("chunks").toString();
        assertEquals(before, after);
        assertFalse(after.contains("tool-call"));
        assertTrue(okQuoted("ledger.verify", "{}").get("ok").asBoolean());
    }
}
