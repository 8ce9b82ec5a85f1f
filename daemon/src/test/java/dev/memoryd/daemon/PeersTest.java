package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.peers.PeerMount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Peers mounted read-only (substrate spec, "Peers"), through the real socket of a served root
 * {@code a} that mounts other roots: reads see the peers' chunks, files and slices at their Git
 * HEAD (or a pinned commit), each naming its peer; every write onto a peer is prohibited.
 */
class PeersTest {
    @TempDir
    Path tmp;

    private final List<TestRoot> open = new ArrayList<>();

    @AfterEach
    void closeAll() {
        open.forEach(TestRoot::close);
    }

    /** A root with the example tree and the chunks {@code project} (body {@code text}) holding {@code task}. */
    private TestRoot peerRoot(String name, String text) throws Exception {
        TestRoot r = new TestRoot(tmp.resolve(name)).serve();
        JsonNode d = r.call(
                "declare",
                ("{'chunks':[{'ref':'p','name':'project','body':{'text':'" + text + "'}},"
                                + "{'name':'task','body':{'text':'first task of " + name
                                + "'},'placements':[{'scope':'p'}]}]}")
                        .replace('\'', '"'));
        assertTrue(d.has("result"), d.toString());
        r.close();
        return r;
    }

    private TestRoot serveWith(TestRoot r, PeerMount... mounts) throws Exception {
        r.configure(c -> c.withPeers(List.of(mounts)));
        r.daemon = dev.memoryd.daemon.app.Daemon.start(r.cfg, false);
        open.add(r);
        return r;
    }

    private static JsonNode ok(TestRoot r, String method, String params) throws Exception {
        JsonNode reply = r.call(method, params.replace('\'', '"'));
        assertTrue(reply.has("result"), method + " " + params + " answered " + reply);
        return reply.get("result");
    }

    private static JsonNode refused(TestRoot r, String method, String params, String reason) throws Exception {
        JsonNode reply = r.call(method, params.replace('\'', '"'));
        assertTrue(reply.has("error"), method + " " + params + " answered " + reply);
        assertEquals(reason, reply.get("error").get("data").get("reason").asText(), reply.toString());
        return reply.get("error");
    }

    private static String commitIn(TestRoot r, String msg, String path, String text) throws Exception {
        Files.createDirectories(r.dir.resolve(path).getParent());
        Files.writeString(r.dir.resolve(path), text);
        r.git("add", path);
        r.git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", msg);
        return r.git("rev-parse", "HEAD").strip();
    }

    @Test
    void scopeAndTraverseOfAPeerNameThePeerAndItsCommit() throws Exception {
        TestRoot b = peerRoot("b", "zebracorn plan");
        String bHead = b.git("rev-parse", "HEAD").strip();
        TestRoot a = serveWith(new TestRoot(tmp.resolve("a")), new PeerMount("b", b.dir, null, false));

        JsonNode s = ok(a, "scope", "{'scopes':['b:project']}");
        assertEquals("b", s.get("peer").asText());
        assertEquals(bHead, s.get("commit").asText());
        assertEquals(1, s.get("chunks").size());
        JsonNode task = s.get("chunks").get(0);
        assertEquals("task", task.get("name").asText());
        assertEquals("b", task.get("peer").asText());
        assertEquals("b:" + task.get("id").asText(), task.get("ref").asText());

        JsonNode t = ok(a, "traverse", "{'from':'b:project'}");
        assertEquals("b", t.get("peer").asText());
        assertEquals("task", t.get("chunks").get(0).get("name").asText());
        // The served root has no 'project': an unqualified reference stays in it.
        refused(a, "scope", "{'scopes':['project']}", "not_found");
        // One read answers from one root.
        JsonNode mixed = refused(a, "scope", "{'scopes':['b:project','sam']}", "invalid_request");
        assertEquals("scopes[1]", mixed.get("data").get("field").asText());
        refused(a, "scope", "{'scopes':['b:project'],'at':'HEAD'}", "invalid_request");
    }

    @Test
    void everyWriteOntoAPeerIsProhibitedNamingItAndRecordsNothing() throws Exception {
        TestRoot b = peerRoot("b", "zebracorn plan");
        String bHead = b.git("rev-parse", "HEAD").strip();
        TestRoot a = serveWith(new TestRoot(tmp.resolve("a")), new PeerMount("b", b.dir, null, false));
        String aHead = ok(a, "ping", "{}").get("head").asText();
        String taskId = ok(a, "scope", "{'scopes':['b:project']}")
                .get("chunks")
                .get(0)
                .get("id")
                .asText();

        JsonNode place = refused(
                a,
                "declare",
                "{'chunks':[{'name':'mine','body':{},'placements':[{'scope':'b:project'}]}]}",
                "prohibited");
        assertEquals("b", place.get("data").get("peer").asText());
        assertEquals(
                "b",
                refused(a, "declare", "{'chunks':[{'id':'b:" + taskId + "','body':{'text':'changed'}}]}", "prohibited")
                        .get("data")
                        .get("peer")
                        .asText());
        assertEquals(
                "b",
                refused(a, "declare", "{'removals':[{'chunk':'b:" + taskId + "'}]}", "prohibited")
                        .get("data")
                        .get("peer")
                        .asText());
        JsonNode write = refused(
                a,
                "write",
                Decl.of(Decl.appendItem("b:users/sam/overview.md", "Active Themes", "x"))
                        .replace('"', '\''),
                "prohibited");
        assertEquals("b", write.get("data").get("peer").asText());

        assertEquals(aHead, ok(a, "ping", "{}").get("head").asText(), "nothing was recorded in the served root");
        assertEquals(bHead, b.git("rev-parse", "HEAD").strip(), "nothing was committed in the peer");
        assertEquals("", b.git("status", "--porcelain"), "the peer's working tree is untouched");
    }

    @Test
    void aPeerIsReadFromItsHeadNeverItsWorkingTreeAndPingListsIt() throws Exception {
        TestRoot b = peerRoot("b", "zebracorn plan");
        TestRoot a = serveWith(new TestRoot(tmp.resolve("a")), new PeerMount("b", b.dir, null, false));
        String committed = b.file("users/sam/overview.md");
        Files.writeString(
                b.dir.resolve("users/sam/overview.md"),
                committed.replace("## Identity", "## Identity\n\nhalf-written"));

        JsonNode r = ok(a, "read", "{'path':'b:users/sam/overview.md'}");
        assertEquals("b", r.get("peer").asText());
        assertEquals("users/sam/overview.md", r.get("path").asText());
        assertEquals(committed, r.get("content").asText(), "the half-written working tree is not read");

        String next = commitIn(
                b, "a note", "users/sam/overview.md", committed.replace("## Identity", "## Identity\n\nquokkamoon"));
        JsonNode after = ok(a, "read", "{'path':'b:users/sam/overview.md','section':'Identity'}");
        assertEquals(next, after.get("commit").asText(), "a new commit in the peer is followed");
        assertTrue(after.get("content").asText().contains("quokkamoon"));

        JsonNode peers = ok(a, "ping", "{}").get("peers");
        assertEquals(1, peers.size());
        assertEquals("b", peers.get(0).get("name").asText());
        assertEquals(next, peers.get(0).get("commit").asText());
        refused(a, "read", "{'path':'b:users/nobody.md'}", "not_found");
    }

    @Test
    void aPinnedPeerStaysAtItsRevision() throws Exception {
        TestRoot b = peerRoot("b", "zebracorn plan");
        String pinned = b.git("rev-parse", "HEAD").strip();
        commitIn(
                b,
                "later",
                "users/sam/notes.md",
                b.file("users/sam/notes.md").replace("## Inbox", "## Inbox\n\n- later"));
        TestRoot a =
                serveWith(new TestRoot(tmp.resolve("a")), new PeerMount("b", b.dir, pinned.substring(0, 12), false));

        JsonNode peers = ok(a, "ping", "{}").get("peers");
        assertEquals(pinned, peers.get(0).get("commit").asText());
        assertEquals(pinned.substring(0, 12), peers.get(0).get("rev").asText());
        assertFalse(ok(a, "read", "{'path':'b:users/sam/notes.md'}")
                .get("content")
                .asText()
                .contains("- later"));
    }

    @Test
    void searchAndExploreSeeThePeersEachHitNamingItsPeer() throws Exception {
        TestRoot b = peerRoot("b", "zebracorn plan");
        TestRoot a = serveWith(new TestRoot(tmp.resolve("a")), new PeerMount("b", b.dir, null, false));

        JsonNode hits = ok(a, "search", "{'q':'zebracorn'}").get("hits");
        assertEquals(1, hits.size(), hits.toString());
        assertEquals("b", hits.get(0).get("peer").asText());
        assertEquals(
                List.of(
                        "path",
                        "section",
                        "anchor",
                        "slice_id",
                        "chunk",
                        "title",
                        "score",
                        "snippet",
                        "label",
                        "age",
                        "tag",
                        "peer"),
                TestRoot.keys(hits.get(0)),
                "a peer's hit: no branch, its peer last");
        // The served root's own hits carry no peer.
        JsonNode own = ok(a, "search", "{'q':'sam','limit':50}").get("hits");
        assertTrue(own.size() > 1);
        boolean rootHit = false;
        for (JsonNode h : own) {
            rootHit |= !h.has("peer");
        }
        assertTrue(rootHit, own.toString());

        String overviewId = "01JC7X00000000000000000001";
        JsonNode ex = ok(a, "explore", "{'id':'b:" + overviewId + "','infer':true}");
        assertEquals("b", ex.get("peer").asText());
        assertTrue(ex.get("links").size() > 0, ex.toString());
        refused(a, "explore", "{'id':'b:01JC7X0000000000000000ZZZZ'}", "not_found");
        // The command line asks the serving daemon, so it sees the peer too.
        Cli.Run cli = Cli.run(a.cliArgs("explore", "b:" + overviewId, "--infer", "--json"));
        assertEquals(0, cli.code(), cli.toString());
        JsonNode viaCli = TestRoot.json(cli.out());
        assertEquals("b", viaCli.get("peer").asText(), cli.toString());
        assertEquals(ex.get("links"), viaCli.get("links"));
        Cli.Run text = Cli.run(a.cliArgs("explore", "b:" + overviewId, "--infer"));
        assertEquals(0, text.code(), text.toString());
        assertTrue(text.out().startsWith(ex.get("links").get(0).get("from").asText() + " "), text.toString());
        Cli.Run missing = Cli.run(a.cliArgs("explore", "b:01JC7X0000000000000000ZZZZ"));
        assertEquals(1, missing.code(), missing.toString());
        assertTrue(missing.err().contains("in peer 'b'"), missing.toString());
    }

    @Test
    void locksAndRefsOntoAPeerAreProhibited_rowsAreReadFromIt_andBranchOrAtIsNamedAsGiven() throws Exception {
        TestRoot b = new TestRoot(tmp.resolve("b")).serve();
        String sliceId = ok(
                        b,
                        "slices.create",
                        "{'slice':{'kind':'context','title':'Log','summary':'Rows.','body':{'type':'jsonl'}}}")
                .get("id")
                .asText();
        ok(
                b,
                "append_row",
                "{'id':'" + sliceId + "','row':{'_meta':{'id':'r1','created_at':'2026-01-01T00:00:00Z'},'x':1}}");
        b.close();
        TestRoot a = serveWith(new TestRoot(tmp.resolve("a")), new PeerMount("b", b.dir, null, false));
        String aHead = ok(a, "ping", "{}").get("head").asText();
        String file = "b:users/sam/overview.md";
        String human = "human:Sam Human <sam@example.com>";

        for (String m : List.of("sections.lock", "sections.unlock")) {
            JsonNode e =
                    refused(a, m, "{'path':'" + file + "','section':'Identity','actor':'" + human + "'}", "prohibited");
            assertEquals("b", e.get("data").get("peer").asText(), e.toString());
            assertTrue(e.get("message").asText().contains(m), e.toString());
        }
        assertEquals(
                "b",
                refused(
                                a,
                                "refs.add",
                                "{'path':'README.md','placed_on':['users/sam/overview.md','" + file + "']}",
                                "prohibited")
                        .get("data")
                        .get("peer")
                        .asText());
        assertEquals(
                "b",
                refused(a, "refs.add", "{'path':'" + file + "','placed_on':'users/sam/overview.md'}", "prohibited")
                        .get("data")
                        .get("peer")
                        .asText());
        assertEquals(
                "b",
                refused(a, "refs.repin", "{'id':'b:ref-1'}", "prohibited")
                        .get("data")
                        .get("peer")
                        .asText());
        assertEquals(
                "b",
                refused(a, "refs.retire", "{'id':'b:ref-1'}", "prohibited")
                        .get("data")
                        .get("peer")
                        .asText());
        assertEquals(aHead, ok(a, "ping", "{}").get("head").asText(), "nothing was recorded in the served root");

        JsonNode sections = ok(a, "sections.list", "{'path':'" + file + "'}");
        assertEquals("b", sections.get("peer").asText());
        assertTrue(sections.get("sections").size() > 3, sections.toString());
        assertEquals(
                "b",
                refused(a, "sections.history", "{'path':'" + file + "','section':'Identity'}", "invalid_request")
                        .get("data")
                        .get("peer")
                        .asText());

        JsonNode rows = ok(a, "slices.rows", "{'id':'b:" + sliceId + "'}");
        assertEquals("b", rows.get("peer").asText());
        assertEquals(1, rows.get("rows").size(), rows.toString());
        assertEquals(1, rows.get("rows").get(0).get("x").asInt());
        refused(a, "slices.rows", "{'id':'" + sliceId + "'}", "not_found");
        refused(a, "slices.rows", "{'id':'b:01JC7X0000000000000000ZZZZ'}", "not_found");

        ok(a, "branch.create", "{'name':'feature'}");
        assertEquals(
                "branch",
                refused(a, "read", "{'path':'" + file + "','branch':'feature'}", "invalid_request")
                        .get("data")
                        .get("field")
                        .asText());
        assertEquals(
                "at",
                refused(a, "read", "{'path':'" + file + "','at':'HEAD'}", "invalid_request")
                        .get("data")
                        .get("field")
                        .asText());
        assertEquals(
                "branch",
                refused(a, "scope", "{'scopes':['b:project'],'branch':'feature'}", "invalid_request")
                        .get("data")
                        .get("field")
                        .asText());
        assertEquals(
                "branch",
                refused(a, "traverse", "{'from':'b:project','branch':'feature'}", "invalid_request")
                        .get("data")
                        .get("field")
                        .asText());
    }

    @Test
    void contextRunsOverAPeersConversationsAndAppendRowOntoAPeerIsProhibited() throws Exception {
        Path golden = ConversationContextTest.GOLDEN.resolve("radius-merge-multi-edge");
        JsonNode in = dev.memoryd.daemon.rpc.JsonRpc.MAPPER.readTree(
                golden.resolve("input.json").toFile());
        JsonNode expected = dev.memoryd.daemon.rpc.JsonRpc.MAPPER.readTree(
                golden.resolve("expected.json").toFile());
        TestRoot b = new TestRoot(tmp.resolve("b")).serve();
        ConversationContextTest.appendAll(b, in.get("dag"));
        String sliceId = b.call(
                        "slices.create",
                        "{\"slice\":{\"kind\":\"context\",\"title\":\"Log\",\"summary\":\"Rows.\",\"body\":{\"type\":\"jsonl\"}}}")
                .get("result")
                .get("id")
                .asText();
        b.close();
        TestRoot a = serveWith(new TestRoot(tmp.resolve("a")), new PeerMount("b", b.dir, null, false));

        com.fasterxml.jackson.databind.node.ObjectNode req = dev.memoryd.daemon.rpc.JsonRpc.MAPPER.createObjectNode();
        req.put("anchor_turn_id", "b:" + in.get("anchor_turn_id").asText());
        req.set("policy", in.get("config"));
        JsonNode got = a.call("context", dev.memoryd.daemon.rpc.JsonRpc.MAPPER.writeValueAsString(req))
                .get("result");
        assertEquals("b", got.get("peer").asText());
        assertEquals(
                List.of(
                        "anchor_turn_id",
                        "turns",
                        "edges",
                        "policy_id",
                        "policy_params_hash",
                        "schema_version",
                        "slice_id",
                        "peer"),
                TestRoot.keys(got));
        ((com.fasterxml.jackson.databind.node.ObjectNode) got).remove("peer");
        assertEquals(dev.memoryd.jcs.Jcs.canonicalize(expected), dev.memoryd.jcs.Jcs.canonicalize(got));
        refused(a, "context", "{'anchor_turn_id':'" + in.get("anchor_turn_id").asText() + "'}", "not_found");

        JsonNode row = refused(
                a,
                "append_row",
                "{'id':'b:" + sliceId + "','row':{'_meta':{'id':'r1','created_at':'2026-01-01T00:00:00Z'},'x':1}}",
                "prohibited");
        assertEquals("b", row.get("data").get("peer").asText());
    }

    @Test
    void threeRootsInACycleOfMountsEndAndNestingOnlyNarrows() throws Exception {
        TestRoot b = peerRoot("b", "bee plan");
        TestRoot c = peerRoot("c", "sea plan");
        Path aDir = tmp.resolve("a").resolve("memory");
        // b mounts c and lets c's peers through; c mounts a (the served root): a cycle.
        commitIn(b, "peers", "memoryd.yaml", "peers:\n  c: {dir: ../../c/memory, peers: true}\n");
        commitIn(c, "peers", "memoryd.yaml", "peers:\n  a: {dir: " + aDir + ", peers: true}\n");

        TestRoot a = serveWith(new TestRoot(tmp.resolve("a")), new PeerMount("b", b.dir, null, true));
        JsonNode peers = ok(a, "ping", "{}").get("peers");
        assertEquals(2, peers.size(), peers.toString());
        assertEquals("b", peers.get(0).get("name").asText());
        assertEquals("b:c", peers.get(1).get("name").asText());
        assertEquals(
                c.git("rev-parse", "HEAD").strip(), peers.get(1).get("commit").asText());

        JsonNode s = ok(a, "scope", "{'scopes':['b:c:project']}");
        assertEquals("b:c", s.get("peer").asText());
        assertEquals(
                "first task of c",
                s.get("chunks").get(0).get("body").get("text").asText());
        assertEquals(
                "b:c",
                refused(a, "declare", "{'placements':[{'chunk':'b:c:task','scope':'b:project'}]}", "prohibited")
                        .get("data")
                        .get("peer")
                        .asText());
        a.close();
        open.remove(a);

        // The same mount without nesting: c is not visible through b.
        TestRoot narrow = serveWith(TestRoot.existing(aDir, a.cfg.keyFile()), new PeerMount("b", b.dir, null, false));
        assertEquals(1, ok(narrow, "ping", "{}").get("peers").size());
        refused(narrow, "scope", "{'scopes':['b:c:project']}", "not_found");
    }

    @Test
    void aPeerIsOpenedReadOnly() throws Exception {
        TestRoot b = peerRoot("b", "zebracorn plan");
        Path clone = tmp.resolve("plain");
        TwoRoots.run("git", "clone", "-q", b.dir.toString(), clone.toString());
        TestRoot a = serveWith(new TestRoot(tmp.resolve("a")), new PeerMount("p", clone, null, true));
        ok(a, "scope", "{'scopes':['p:project']}");
        ok(a, "search", "{'q':'zebracorn'}");
        ok(a, "read", "{'path':'p:users/sam/overview.md'}");
        assertFalse(Files.exists(clone.resolve(".memoryd")), "no .memoryd/ state in a peer");
        assertEquals("", TwoRoots.run("git", "-C", clone.toString(), "status", "--porcelain", "--ignored"));
        try (var locks = Files.walk(clone.resolve(".git"))) {
            assertTrue(locks.noneMatch(f -> f.toString().endsWith(".lock")), "no lock left in the peer");
        }
    }

    @Test
    void serveDashDashPeerMountsThroughTheCommandLine() throws Exception {
        TestRoot b = peerRoot("b", "zebracorn plan");
        TestRoot a = new TestRoot(tmp.resolve("a"));
        Cli.Run bad = Cli.run(a.cliArgs("serve", "--peer", "Bad=" + b.dir));
        assertEquals(2, bad.code(), bad.toString());
        assertTrue(bad.err().contains("invalid peer name 'Bad'"), bad.toString());
        try (DaemonProcess d = DaemonProcess.start(a.cfg, tmp.resolve("a.log"), "--peer", "b=" + b.dir)) {
            Cli.Run scope = Cli.run(a.cliArgs("scope", "b:project", "--json"));
            assertEquals(0, scope.code(), scope.toString());
            JsonNode s = TestRoot.json(scope.out());
            assertEquals("b", s.get("peer").asText());
            assertEquals("task", s.get("chunks").get(0).get("name").asText());
            Cli.Run read = Cli.run(a.cliArgs("read", "b:users/sam/overview.md"));
            assertEquals(0, read.code(), read.toString());
            assertEquals(b.file("users/sam/overview.md"), read.out().strip() + "\n");
            Cli.Run declare = Cli.run(a.cliArgs(
                    "declare",
                    "--file",
                    write(tmp.resolve("d.json"), "{\"placements\":[{\"chunk\":\"sam\",\"scope\":\"b:project\"}]}")));
            assertEquals(1, declare.code(), declare.toString());
            assertTrue(declare.err().contains("prohibited") && declare.err().contains("peer 'b'"), declare.toString());
            Cli.Run status = Cli.run(a.cliArgs("ping", "--json"));
            assertEquals(
                    b.git("rev-parse", "HEAD").strip(),
                    TestRoot.json(status.out())
                            .get("peers")
                            .get(0)
                            .get("commit")
                            .asText(),
                    status.toString());
        }
    }

    private static String write(Path f, String text) throws Exception {
        Files.writeString(f, text);
        return f.toString();
    }

    @Test
    void aPeerThatCannotBeMountedStopsServeNamingIt() throws Exception {
        TestRoot a = new TestRoot(tmp.resolve("a"));
        a.configure(c -> c.withPeers(List.of(new PeerMount("gone", tmp.resolve("nowhere"), null, false))));
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalStateException.class, () -> dev.memoryd.daemon.app.Daemon.start(a.cfg, false));
        assertTrue(e.getMessage().contains("peer 'gone'"), e.getMessage());
        org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> new PeerMount("Bad Name", tmp, null, false));
        assertEquals(new PeerMount("team", tmp.resolve("t"), "v1", false), PeerMount.parse("team=t@v1", tmp, false));
    }
}
