package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.peers.PeerMount;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keys of a {@code read} and a {@code ping} reply and their order, as clients see them on the
 * socket and from {@code memoryd read --json} without a daemon: a client that reads a reply as a
 * stream (or compares it byte for byte) depends on both.
 */
class ReadAndPingReplyShapeTest {
    private static final String OVERVIEW = "users/sam/overview.md";

    @TempDir
    Path tmp;

    private static JsonNode ok(TestRoot r, String method, String params) throws Exception {
        JsonNode reply = r.call(method, params.replace('\'', '"'));
        assertTrue(reply.has("result"), method + " " + params + " answered " + reply);
        return reply.get("result");
    }

    @Test
    void aReadReplyNamesPathCommitSectionsContentAndHashInThatOrder() throws Exception {
        try (TestRoot b = new TestRoot(tmp.resolve("b"));
                TestRoot a = new TestRoot(tmp.resolve("a"))) {
            a.configure(c -> c.withPeers(List.of(new PeerMount("b", b.dir, null, false))));
            a.serve();

            JsonNode file = ok(a, "read", "{'path':'" + OVERVIEW + "'}");
            assertEquals(List.of("path", "commit", "sections", "content", "hash"), TestRoot.keys(file));
            assertEquals(
                    List.of("name", "anchor", "hash"),
                    TestRoot.keys(file.get("sections").get(0)));
            assertTrue(file.get("commit").isTextual(), file.toString());

            JsonNode section = ok(a, "read", "{'path':'" + OVERVIEW + "','section':'Identity'}");
            assertEquals(List.of("path", "commit", "sections", "section", "content", "hash"), TestRoot.keys(section));

            JsonNode onPeer = ok(a, "read", "{'path':'b:" + OVERVIEW + "','section':'Identity'}");
            assertEquals(
                    List.of("path", "peer", "commit", "sections", "section", "content", "hash"), TestRoot.keys(onPeer));
            assertEquals(
                    List.of("name", "anchor", "hash"),
                    TestRoot.keys(onPeer.get("sections").get(0)));
        }
    }

    @Test
    void aPingReplyNamesTheDaemonThenItsWriterWatcherDriftAndPeersInThatOrder() throws Exception {
        try (TestRoot a = new TestRoot(tmp.resolve("a")).serve()) {
            JsonNode ping = ok(a, "ping", "{}");
            assertEquals(
                    List.of(
                            "version",
                            "protocol",
                            "root",
                            "branch",
                            "head",
                            "started",
                            "runtime",
                            "write_stats",
                            "writer",
                            "watcher",
                            "drift_open",
                            "peers"),
                    TestRoot.keys(ping));
            assertEquals(List.of("uptime_ms", "jit_ms"), TestRoot.keys(ping.get("runtime")));
            assertEquals(List.of("state"), TestRoot.keys(ping.get("watcher")), "a daemon not watching says so alone");
            assertEquals("off", ping.get("watcher").get("state").asText());
            assertTrue(ping.get("drift_open").isInt(), ping.toString());
            assertTrue(ping.get("peers").isArray(), ping.toString());
        }
    }

    @Test
    void aWatchingDaemonsPingNamesEachWatcherFieldInOrder_unseenOnesAsNull() throws Exception {
        try (TestRoot a = new TestRoot(tmp.resolve("a")).serveWatching()) {
            JsonNode w = ok(a, "ping", "{}").get("watcher");
            assertEquals(
                    List.of(
                            "state",
                            "quiet_ms",
                            "rescan_every_s",
                            "pending",
                            "events",
                            "captures",
                            "rescans",
                            "restarts",
                            "last_event",
                            "last_capture",
                            "last_rescan",
                            "last_error"),
                    TestRoot.keys(w));
            assertTrue(w.get("last_error").isNull(), w.toString());
            assertTrue(w.get("quiet_ms").isIntegralNumber(), w.toString());
        }
    }

    @Test
    void readJsonWithoutADaemonHasTheSocketsKeysAndOrder() throws Exception {
        try (TestRoot a = new TestRoot(tmp.resolve("a"))) {
            Cli.Run run = Cli.run(a.cliArgs("read", OVERVIEW, "--section", "Identity", "--json"));
            assertEquals(0, run.code(), run.toString());
            JsonNode r = JsonRpc.MAPPER.readTree(run.out());
            assertEquals(List.of("path", "commit", "sections", "section", "content", "hash"), TestRoot.keys(r));
            assertEquals(
                    List.of("name", "anchor", "hash"),
                    TestRoot.keys(r.get("sections").get(0)));
        }
    }
}
