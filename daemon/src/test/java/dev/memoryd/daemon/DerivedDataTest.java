package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Derived data (substrate spec, "Derived data"): a chunk whose body carries {@code source_commit},
 * placed {@code relates} on what it derives from, is stale once that scope (its chunks and
 * placements, through instances) changed after that commit; {@code scope}, {@code traverse} and
 * {@code stale} say so.
 */
class DerivedDataTest extends ServedRootTest {

    private JsonNode okQuoted(String method, String json) throws Exception {
        JsonNode r = root.call(method, json.replace('\'', '"'));
        assertTrue(r.has("result"), method + " " + json + " -> " + r);
        return r.get("result");
    }

    /** Ids by ref of the chunks a declaration created, and its commit as {@code "commit"}. */
    private java.util.Map<String, String> declare(String json) throws Exception {
        JsonNode r = okQuoted("declare", json);
        java.util.Map<String, String> ids = new java.util.HashMap<>();
        r.get("created")
                .forEach(c -> ids.put(c.path("ref").asText(), c.get("id").asText()));
        ids.put("commit", r.get("commit").asText());
        return ids;
    }

    /** A project with a task and a derivation scope summaries/opus-4.6; returns ids by ref and the commit. */
    private java.util.Map<String, String> field() throws Exception {
        return declare("{'chunks':[{'ref':'p','name':'project','body':{'text':'The scope engine'}},"
                + "{'ref':'t','name':'task','body':{'text':'Fix duplicates'},'placements':[{'scope':'p'}]},"
                + "{'ref':'st','name':'subtask','body':{'text':'Find the join'},'placements':[{'scope':'t'}]},"
                + "{'ref':'o','name':'other','body':{'text':'Unrelated'}},"
                + "{'ref':'ot','name':'other-task','body':{'text':'Elsewhere'},'placements':[{'scope':'o'}]},"
                + "{'ref':'s','name':'summaries'},"
                + "{'ref':'m','name':'opus-4.6','placements':[{'scope':'s'}]}]}");
    }

    private String summarize(String scope, String sourceCommit) throws Exception {
        return declare("{'chunks':[{'ref':'x','body':{'text':'Summary','source_commit':'" + sourceCommit
                        + "','model':'opus-4.6'}," + "'placements':[{'scope':'" + scope
                        + "','type':'relates'},{'scope':'summaries/opus-4.6'}]}]}")
                .get("x");
    }

    private JsonNode inScope(String scope, String id) throws Exception {
        for (JsonNode c : okQuoted("scope", "{'scopes':['" + scope + "']}").get("chunks")) {
            if (c.get("id").asText().equals(id)) {
                return c;
            }
        }
        throw new AssertionError(id + " not in scope " + scope);
    }

    private static List<String> ids(JsonNode arr) {
        List<String> out = new ArrayList<>();
        arr.forEach(x -> out.add(x.asText()));
        return out;
    }

    @Test
    void aSummary_goesStale_whenAnInstanceOfItsScopeChanges_andNamesTheCommit() throws Exception {
        var f = field();
        String summary = summarize(f.get("p"), f.get("commit"));
        JsonNode fresh = inScope("summaries/opus-4.6", summary);
        assertFalse(fresh.get("stale").asBoolean(), fresh.toString());
        assertEquals(List.of(), ids(fresh.get("changed_since")));
        assertEquals(List.of(f.get("p")), ids(fresh.get("sources")));
        String change = declare("{'chunks':[{'id':'" + f.get("st") + "','body':{'text':'Found the join'}}]}")
                .get("commit");
        JsonNode stale = inScope("summaries/opus-4.6", summary);
        assertTrue(stale.get("stale").asBoolean(), "a sub-task (instance of an instance) changed: " + stale);
        assertEquals(List.of(change), ids(stale.get("changed_since")));
        JsonNode listed = okQuoted("stale", "{'scope':'summaries'}");
        assertEquals(1, listed.get("total").asInt(), listed.toString());
        assertEquals(summary, listed.get("stale").get(0).get("id").asText());
        assertEquals(List.of(change), ids(listed.get("stale").get(0).get("changed_since")));
        JsonNode asBefore = okQuoted(
                "scope",
                "{'scopes':['summaries/opus-4.6'],'at':'"
                        + okQuoted("ping", "{}").get("head").asText() + "~1'}");
        assertFalse(
                asBefore.get("chunks").get(0).get("stale").asBoolean(),
                "read as of before the change, it was fresh: " + asBefore);
    }

    @Test
    void aSummary_staysFresh_whenAnUnrelatedScopeChanges_orItselfIsRewritten() throws Exception {
        var f = field();
        String summary = summarize(f.get("p"), f.get("commit"));
        declare("{'chunks':[{'id':'" + f.get("ot") + "','body':{'text':'Elsewhere, changed'}}," + "{'id':'" + f.get("o")
                + "','body':{'text':'Unrelated, changed'}}]}");
        declare("{'chunks':[{'id':'" + summary + "','body':{'text':'Summary, reworded','source_commit':'"
                + f.get("commit") + "'}}]}");
        JsonNode c = inScope("summaries/opus-4.6", summary);
        assertFalse(c.get("stale").asBoolean(), c.toString());
        JsonNode listed = okQuoted("stale", "{'scope':'summaries'}");
        assertEquals(0, listed.get("total").asInt(), listed.toString());
        assertEquals(1, listed.get("derived").asInt(), "the summary was judged: " + listed);
    }

    @Test
    void aChunkLeavingOrJoiningTheScope_makesItsSummaryStale() throws Exception {
        var f = field();
        String summary = summarize(f.get("p"), f.get("commit"));
        String leave = declare("{'removals':[{'chunk':'" + f.get("t") + "','scope':'" + f.get("p") + "'}]}")
                .get("commit");
        assertEquals(
                List.of(leave),
                ids(inScope("summaries/opus-4.6", summary).get("changed_since")),
                "the task left the project: it is in the scope as of the source commit only");
        String fresh = summarize(f.get("p"), leave);
        String join = declare("{'placements':[{'chunk':'" + f.get("ot") + "','scope':'" + f.get("p") + "'}]}")
                .get("commit");
        assertEquals(List.of(join), ids(inScope("summaries/opus-4.6", fresh).get("changed_since")));
    }

    @Test
    void aSummaryOfAMemorySection_goesStaleWithThatSectionOnly() throws Exception {
        declare(
                "{'chunks':[{'ref':'s','name':'summaries'},{'ref':'m','name':'opus-4.6','placements':[{'scope':'s'}]}]}");
        String source = okQuoted("ping", "{}").get("head").asText();
        String summary = summarize("sam/inner-critic/role", source);
        String path = "users/sam/parts/inner-critic/profile.md";
        okQuoted(
                "write",
                "{'rationale':'t','ops':[{'op':'append_item','path':'" + path
                        + "','section':'Triggers','item':'Deadlines'}]}");
        JsonNode afterOther = inScope("summaries/opus-4.6", summary);
        assertFalse(afterOther.get("stale").asBoolean(), "another section of the same file changed: " + afterOther);
        String role = okQuoted(
                        "write",
                        "{'rationale':'t','ops':[{'op':'replace_section','path':'" + path
                                + "','section':'Role','content':'Keeps watch over the work.'}]}")
                .get("commit")
                .asText();
        JsonNode afterRole = inScope("summaries/opus-4.6", summary);
        assertTrue(afterRole.get("stale").asBoolean(), afterRole.toString());
        assertEquals(List.of(role), ids(afterRole.get("changed_since")));
    }

    @Test
    void anUnknownSourceCommit_isStaleWithAReason_andTraverseSaysSoToo() throws Exception {
        var f = field();
        String summary = summarize(f.get("p"), "0123456789abcdef0123456789abcdef01234567");
        JsonNode c = inScope("summaries/opus-4.6", summary);
        assertTrue(c.get("stale").asBoolean(), c.toString());
        assertTrue(c.get("stale_reason").asText().contains("not the id of a commit"), c.toString());
        String byName = summarize(f.get("p"), "main");
        JsonNode named = inScope("summaries/opus-4.6", byName);
        assertTrue(named.get("stale").asBoolean(), "a branch name moves with the branch, so it pins nothing: " + named);
        JsonNode t = okQuoted("traverse", "{'from':'summaries/opus-4.6'}");
        JsonNode viaTraverse = t.get("chunks").get(0);
        assertEquals(summary, viaTraverse.get("id").asText(), t.toString());
        assertTrue(viaTraverse.get("stale").asBoolean());
        JsonNode plain = inScope("project", f.get("t"));
        assertFalse(plain.has("stale"), "a chunk with no source_commit is not derived: " + plain);
    }

    @Test
    void cli_stale_listsTheStaleOnes_andExitsOneWhenAnyIs() throws Exception {
        var f = field();
        String summary = summarize(f.get("p"), f.get("commit"));
        Cli.Run none = Cli.run(root.cliArgs("stale", "summaries"));
        assertEquals(0, none.code(), none.toString());
        declare("{'chunks':[{'id':'" + f.get("t") + "','body':{'text':'Fixed'}}]}");
        Cli.Run some = Cli.run(root.cliArgs("stale", "summaries"));
        assertEquals(1, some.code(), some.toString());
        assertTrue(some.out().startsWith(summary + "  -  stale: 1 commit(s) since " + f.get("commit")), some.out());
        Cli.Run missing = Cli.run(root.cliArgs("stale", "no-such-scope"));
        assertEquals(1, missing.code(), missing.toString());
        assertTrue(missing.err().contains("not_found"), missing.err());
    }

    @Test
    void everySubstrateResult_keepsItsWireKeysInOrder() throws Exception {
        var f = field();
        JsonNode declared = okQuoted(
                "declare",
                "{'chunks':[{'ref':'k','name':'kinds','spec':{'required':['program']},'body':{'text':'Kinds'},"
                        + "'placements':[{'scope':'" + f.get("p") + "','type':'relates'}]}]}");
        assertEquals(List.of("created", "commit", "changed", "changed_paths"), TestRoot.keys(declared));
        assertEquals(
                List.of("ref", "id", "path"),
                TestRoot.keys(declared.get("created").get(0)));
        String kinds = declared.get("created").get(0).get("id").asText();
        JsonNode unchanged = okQuoted("declare", "{'chunks':[{'id':'" + kinds + "','body':{'text':'Kinds'}}]}");
        assertFalse(unchanged.get("changed").asBoolean(), unchanged.toString());
        assertEquals(List.of("created", "commit", "changed", "changed_paths"), TestRoot.keys(unchanged));
        String summary = summarize(f.get("p"), "0123456789abcdef0123456789abcdef01234567");

        JsonNode scope = okQuoted("scope", "{'scopes':['project'],'minus':['other']}");
        assertEquals(List.of("branch", "commit", "counts", "scopes", "minus", "chunks"), TestRoot.keys(scope));
        assertEquals(List.of("total", "returned", "offset", "limit"), TestRoot.keys(scope.get("counts")));
        List<String> ref = List.of("id", "name", "file", "section", "branch");
        assertEquals(ref, TestRoot.keys(scope.get("scopes").get(0)));
        assertEquals(ref, TestRoot.keys(scope.get("minus").get(0)));
        JsonNode plain = inScope("project", f.get("t"));
        assertEquals(
                List.of("id", "name", "file", "section", "branch", "body", "placements", "derived"),
                TestRoot.keys(plain));
        assertEquals(
                List.of("chunk", "scope", "type"),
                TestRoot.keys(plain.get("placements").get(0)));
        JsonNode specd = inScope("project", kinds);
        assertEquals(
                List.of("id", "name", "file", "section", "branch", "spec", "body", "placements", "derived"),
                TestRoot.keys(specd));
        assertEquals(
                List.of("chunk", "scope", "type"),
                TestRoot.keys(specd.get("placements").get(0)));
        JsonNode derived = inScope("summaries/opus-4.6", summary);
        assertEquals(
                List.of(
                        "id",
                        "name",
                        "file",
                        "section",
                        "branch",
                        "body",
                        "placements",
                        "derived",
                        "stale",
                        "changed_since",
                        "sources",
                        "stale_reason"),
                TestRoot.keys(derived));

        JsonNode t = okQuoted("traverse", "{'from':'summaries/opus-4.6','depth':2}");
        assertEquals(
                List.of("branch", "commit", "from", "chunks", "placements", "connections", "truncated"),
                TestRoot.keys(t));
        assertEquals(ref, TestRoot.keys(t.get("from")));
        assertEquals(
                List.of(
                        "id",
                        "name",
                        "file",
                        "section",
                        "branch",
                        "depth",
                        "stale",
                        "changed_since",
                        "sources",
                        "stale_reason"),
                TestRoot.keys(t.get("chunks").get(0)));
        assertEquals(
                List.of("chunk", "scope", "type"),
                TestRoot.keys(t.get("placements").get(0)));
        assertEquals(
                List.of("id", "name", "file", "section", "branch", "depth", "via"),
                TestRoot.keys(t.get("connections").get(0)));

        assertTrue(
                PayloadLines.assertRoundTrip(root.dir) >= 9, "every declare line, read back typed, is the same bytes");
        JsonNode stale = okQuoted("stale", "{'scope':'summaries'}");
        assertEquals(
                List.of("branch", "commit", "scope", "derived", "total", "stale", "truncated"), TestRoot.keys(stale));
        assertEquals(ref, TestRoot.keys(stale.get("scope")));
        assertEquals(
                List.of(
                        "id",
                        "name",
                        "file",
                        "section",
                        "branch",
                        "body",
                        "stale",
                        "changed_since",
                        "sources",
                        "stale_reason"),
                TestRoot.keys(stale.get("stale").get(0)));
    }
}
