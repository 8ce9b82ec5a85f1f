package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structure-aware fuzzing of the socket protocol: valid requests for every method, mutated with a
 * fixed seed (lone surrogates and control characters in strings and keys, over-long strings, wrong
 * types, nulls, extreme numbers, deep nesting, missing and extra fields, Lucene syntax, truncated
 * lines), sent over the real socket of an in-process daemon. No reply may be {@code internal}, the
 * writer must keep writing, no chain directory may lack its branch, and the root must serve again
 * after a restart. {@code -Dmemoryd.fuzzRequests=N} runs longer, {@code -Dmemoryd.fuzzSeed=S} varies.
 */
class RequestFuzzTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    static final String OVERVIEW = "users/sam/overview.md";
    static final String TURN = "00000000-0000-4000-8000-000000000001";
    static final JsonNodeFactory F = JsonNodeFactory.instance;
    /** Escapes every non-ASCII char as \\uXXXX, so lone surrogates reach the daemon as JSON escapes. */
    static final ObjectMapper ESCAPING = JsonMapper.builder(com.fasterxml.jackson.core.JsonFactory.builder()
                    .streamWriteConstraints(com.fasterxml.jackson.core.StreamWriteConstraints.builder()
                            .maxNestingDepth(10_000)
                            .build())
                    .build())
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .build();

    @TempDir
    Path tmp;

    @Test
    void mutatedRequests_neverInternal_writerKeepsWriting_rootServesAfterRestart() throws Exception {
        int requests = Integer.getInteger("memoryd.fuzzRequests", 4000);
        long seed = Long.getLong("memoryd.fuzzSeed", 20260101L);
        TestRoot root = new TestRoot(tmp).serve();
        // A client's input is answered, never logged as a failure of the daemon's.
        LogCapture severe = new LogCapture(java.util.logging.Level.SEVERE);
        try {
            List<String[]> templates = templates(root);
            Random rnd = new Random(seed);
            Map<String, Integer> internal = new TreeMap<>();
            Map<String, Integer> outcomes = new TreeMap<>();
            List<String> examples = new ArrayList<>();
            int[] stopped = {0};
            assertTimeoutPreemptively(Duration.ofMinutes(10), () -> {
                SocketClient c = root.client();
                try {
                    for (int i = 0; i < requests; i++) {
                        String[] t = templates.get(rnd.nextInt(templates.size()));
                        String line = mutate(rnd, t[0], (ObjectNode) JsonRpc.MAPPER.readTree(t[1]), i);
                        long t0 = System.nanoTime();
                        String reply = c.raw(line);
                        long ms = (System.nanoTime() - t0) / 1_000_000;
                        if (ms > 2000 || Boolean.getBoolean("memoryd.fuzzTrace")) {
                            System.out.println("fuzz #" + i + " " + t[0] + " took " + ms + " ms: " + abbreviate(line));
                        }
                        if (reply == null) { // a closed connection is a precise answer to garbage; reconnect
                            c.close();
                            c = root.client();
                            continue;
                        }
                        JsonNode r = JsonRpc.MAPPER.readTree(reply);
                        String reason =
                                r.path("error").path("data").path("reason").asText("");
                        outcomes.merge(reason.isEmpty() ? "result" : reason, 1, Integer::sum);
                        if (r.path("error").path("message").asText("").contains("writer has stopped")) {
                            stopped[0]++;
                        }
                        if (reason.equals("internal")) {
                            internal.merge(t[0], 1, Integer::sum);
                            if (examples.size() < 15) {
                                examples.add(abbreviate(line) + "\n  -> " + abbreviate(reply));
                            }
                        }
                    }
                } finally {
                    c.close();
                }
            });
            System.out.println("fuzz: " + requests + " requests, seed " + seed + ", internal by method " + internal
                    + ", replies saying the writer stopped " + stopped[0] + ", outcomes " + outcomes);
            assertEquals(Map.of(), internal, "internal replies:\n" + String.join("\n", examples));
            assertEquals(0, stopped[0], "replies saying the writer has stopped");
            assertEquals(List.of(), severe.seen(), "SEVERE logged while fuzzing");
            assertValidWriteSucceeds(root, "after fuzzing");
            assertNoOrphanChains(root);
            assertTrue(
                    root.call("ledger.verify", null).path("result").path("ok").asBoolean(), "ledger verifies");
            root.close();
            root.serveAsIs();
            assertTrue(root.call("ping", null).has("result"), "root serves after a restart");
            assertValidWriteSucceeds(root, "after a restart");
        } finally {
            severe.close();
            root.close();
        }
    }

    private static void assertValidWriteSucceeds(TestRoot root, String when) throws IOException {
        JsonNode w = root.call(
                "write",
                "{\"ops\":[{\"op\":\"append_item\",\"path\":\"" + OVERVIEW
                        + "\",\"section\":\"Confirmed Parts\",\"item\":\"still writing " + when + " "
                        + System.nanoTime()
                        + "\"}],\"rationale\":\"fuzz check\"}");
        assertTrue(w.has("result"), "a valid write " + when + ": " + w);
    }

    /** Every chain directory under ledger/ belongs to a branch that exists or was deleted (its ref retired). */
    private static void assertNoOrphanChains(TestRoot root) throws Exception {
        Path ledger = root.dir.resolve("ledger");
        List<String> orphans = new ArrayList<>();
        try (Stream<Path> s = Files.walk(ledger)) {
            for (Path d : (Iterable<Path>) s.filter(Files::isDirectory)::iterator) {
                boolean chain;
                try (Stream<Path> kids = Files.list(d)) {
                    chain = kids.anyMatch(k -> k.getFileName().toString().matches("\\d{4}"));
                }
                boolean empty;
                try (Stream<Path> all = Files.walk(d)) {
                    empty = all.noneMatch(Files::isRegularFile);
                }
                if (empty) {
                    orphans.add(ledger.relativize(d) + " (empty)");
                    continue;
                }
                if (!chain) {
                    continue;
                }
                String b = ledger.relativize(d).toString();
                String branch = b.contains("@") ? b.substring(0, b.lastIndexOf('@')) : b;
                boolean live = root.git(
                                "for-each-ref",
                                "--format=%(refname)",
                                "refs/heads/" + branch,
                                "refs/memoryd/deleted/" + branch)
                        .lines()
                        .anyMatch(l -> l.endsWith("/" + branch));
                if (!live) {
                    orphans.add(b);
                }
            }
        }
        assertEquals(List.of(), orphans, "chain directories without a branch");
    }

    /** Method and params of a valid request per method (ids made in a setup the fuzzing then mutates). */
    private static List<String[]> templates(TestRoot root) throws IOException {
        String slice = root.call(
                        "slices.create",
                        "{\"slice\":{\"title\":\"Log\",\"summary\":\"Rows.\",\"body\":{\"type\":\"jsonl\"}}}")
                .path("result")
                .path("id")
                .asText();
        assertTrue(!slice.isEmpty(), "setup: slice");
        assertTrue(
                root.call("declare", "{\"chunks\":[{\"name\":\"topic\",\"body\":{\"text\":\"a topic\"}}]}")
                        .has("result"),
                "setup: chunk");
        assertTrue(root.call("branch.create", "{\"name\":\"feature\"}").has("result"), "setup: branch");
        String token = root.call(
                        "write",
                        "{\"ops\":[{\"op\":\"append_item\",\"path\":\"" + OVERVIEW
                                + "\",\"section\":\"Confirmed Parts\",\"item\":\"setup item\"}],\"rationale\":\"setup\"}")
                .path("result")
                .path("events")
                .path(0)
                .path("token")
                .asText();
        String turn = "{\"id\":\"" + TURN + "\",\"role\":\"user\",\"phase\":\"planning\",\"salience\":0.5,"
                + "\"trajectory_depth\":0,\"trajectory_sibling_order\":0,\"trajectory_homogeneity\":0.5,"
                + "\"trajectory_temporal\":0.5,\"trajectory_complexity\":1.0,\"created_at\":\"2026-01-01T00:00:00Z\"}";
        assertTrue(
                root.call("conversation.append", "{\"session_id\":\"s1\",\"turns\":[" + turn + "]}")
                        .has("result"),
                "setup: turn");
        String w =
                "{\"rationale\":\"r\",\"actor\":\"agent\",\"idempotency_key\":\"k1\",\"tool_call_id\":\"t1\",\"ops\":[";
        String[][] t = {
            {"ping", "{}"},
            {
                "write",
                w + "{\"op\":\"append_item\",\"path\":\"" + OVERVIEW
                        + "\",\"section\":\"Confirmed Parts\",\"item\":\"x\"}]}"
            },
            {
                "write",
                w + "{\"op\":\"replace_section\",\"path\":\"" + OVERVIEW
                        + "\",\"section\":\"Current Focus\",\"content\":\"Focus.\"," + "\"evidence_refs\":[\"" + token
                        + "\"],\"override_rationale\":\"o\"}]}"
            },
            {
                "write",
                w + "{\"op\":\"append_section\",\"path\":\"" + OVERVIEW
                        + "\",\"section\":\"Current Focus\",\"content\":\"More.\"}]}"
            },
            {
                "write",
                w + "{\"op\":\"curate_items\",\"path\":\"" + OVERVIEW
                        + "\",\"section\":\"Confirmed Parts\",\"remove\":[\"x\"],"
                        + "\"merge\":[{\"items\":[\"a\",\"b\"],\"into\":\"c\"}],\"reason\":\"tidy\"}]}"
            },
            {
                "write",
                w + "{\"op\":\"tombstone_section\",\"path\":\"" + CRITIC
                        + "\",\"section\":\"Role\",\"reason\":\"gone\"}]}"
            },
            {
                "write",
                w + "{\"op\":\"create_entity\",\"user_id\":\"sam\",\"entity_type\":\"part\",\"entity_id\":\"new-part\","
                        + "\"title\":\"New part\",\"participants\":[\"sam\"],\"slice_ids\":[]}],\"branch\":\"feature\"}"
            },
            {"read", "{\"path\":\"" + OVERVIEW + "\",\"section\":\"Identity\",\"branch\":\"feature\"}"},
            {"read", "{\"path\":\"" + CRITIC + "\",\"at\":\"HEAD\"}"},
            {"lint", "{\"path\":\"" + CRITIC + "\"}"},
            {"history", "{\"path\":\"" + OVERVIEW + "\",\"section\":\"Identity\",\"limit\":5,\"branch\":\"main\"}"},
            {"resolve", "{\"token\":\"" + token + "\"}"},
            {"ledger.verify", "{}"},
            {"ledger.rotate_key", "{\"actor\":\"maintainer\"}"},
            {"proposals.list", "{\"all\":true}"},
            {"proposals.show", "{\"id\":\"01JC7X00000000000000000001\"}"},
            {"proposals.accept", "{\"id\":\"01JC7X00000000000000000001\",\"actor\":\"a\",\"note\":\"n\"}"},
            {"proposals.reject", "{\"id\":\"01JC7X00000000000000000001\",\"actor\":\"a\",\"note\":\"n\"}"},
            {"drift.list", "{}"},
            {"drift.show", "{\"id\":\"d1\"}"},
            {
                "drift.resolve",
                "{\"id\":\"d1\",\"resolution\":\"reanchor\",\"from\":\"a\",\"to\":\"b\",\"actor\":\"a\",\"note\":\"n\"}"
            },
            {"capture", "{\"paths\":[\"" + CRITIC + "\"]}"},
            {"replay", "{\"verify\":true}"},
            {"explore", "{\"id\":\"01JC7X00000000000000000001\",\"rel\":\"likes\",\"infer\":true}"},
            {
                "conversation.append",
                "{\"session_id\":\"s1\",\"actor\":\"a\",\"turns\":[" + turn.replace("001\"", "002\"") + "]}"
            },
            {"context", "{\"anchor_turn_id\":\"" + TURN + "\",\"policy\":{\"max_nodes\":3}}"},
            {
                "slices.create",
                "{\"slice\":{\"title\":\"T\",\"summary\":\"S.\",\"body\":{\"type\":\"markdown\"}},\"body\":\"# T\\n\","
                        + "\"actor\":\"a\"}"
            },
            {"slices.list", "{}"},
            {"slices.rows", "{\"id\":\"" + slice + "\",\"all\":true}"},
            {
                "append_row",
                "{\"id\":\"" + slice + "\",\"actor\":\"a\",\"row\":{\"_meta\":{\"id\":\"r1\","
                        + "\"created_at\":\"2026-11-01T10:00:00Z\",\"supersedes\":[\"r0\"]},\"text\":\"Row.\"}}"
            },
            {"search", "{\"q\":\"critic\",\"limit\":5}"},
            {"search", "{\"q\":\"title:sam AND text:voice*\",\"branch\":\"feature\"}"},
            {
                "declare",
                "{\"chunks\":[{\"name\":\"n1\",\"body\":{\"text\":\"x\"},\"placements\":[{\"scope\":\"topic\","
                        + "\"type\":\"relates\"}]}],\"rationale\":\"r\",\"actor\":\"a\"}"
            },
            {"scope", "{\"scopes\":[\"topic\"],\"minus\":[\"n1\"],\"limit\":10,\"offset\":0,\"branch\":\"feature\"}"},
            {"traverse", "{\"from\":\"topic\",\"depth\":2,\"limit\":10}"},
            {
                "refs.add",
                "{\"path\":\"docs/plan.txt\",\"section\":\"Identity\",\"placed_on\":[\"" + OVERVIEW
                        + "\"],\"actor\":\"a\"}"
            },
            {"refs.reconcile", "{\"actor\":\"a\"}"},
            {"refs.repin", "{\"id\":\"r1\",\"actor\":\"a\",\"note\":\"n\"}"},
            {"refs.retire", "{\"id\":\"r1\",\"actor\":\"a\",\"note\":\"n\"}"},
            {"refs.list", "{\"all\":true}"},
            {"sync", "{\"remote\":\"origin\",\"resolutions\":[],\"actor\":\"a\"}"},
            {"branch.create", "{\"name\":\"topic/one\",\"from\":\"main\",\"actor\":\"a\"}"},
            {"branch.list", "{}"},
            {"branch.delete", "{\"name\":\"feature\",\"actor\":\"a\"}"},
            {"branch.merge", "{\"from\":\"feature\",\"into\":\"main\",\"resolutions\":[],\"actor\":\"a\"}"},
            {"slip.send", "{\"message\":\"@a3|f0|c3|S0|d1|T1|gH|kg|q2|t\\\"refactor_auth\\\"#\",\"actor\":\"a\"}"},
            {
                "slip.send",
                "{\"message\":{\"conv_id\":1,\"turn\":1,\"src\":0,\"dst\":1,\"act\":\"ASK\",\"frame\":\"TASK\","
                        + "\"slots\":{\"topic\":\"auth\"}}}"
            },
            {"slip.recv", "{\"agent\":1,\"wait_ms\":0,\"max\":5}"},
        };
        return List.of(t);
    }

    // ---- mutation ----

    private static final String[] EVIL = {
        "\ud800",
        "\udfff",
        "x \ud800",
        "\udc00\ud800",
        "\ud83d",
        "a\u0000b",
        "\u0001",
        "\u001b[31m",
        "\u007f",
        "\r",
        "\t",
        "line\nline",
        "",
        " ",
        "..",
        "../../etc/passwd",
        "/etc/passwd",
        ".git/config",
        "refs/heads/main",
        "HEAD",
        "-x",
        "a.lock",
        "a/",
        "a//b",
        "@",
        "@{u}",
        "main@laptop",
        "x~1",
        "a:b",
        "proposals/x",
        "\u202e",
        "\ufeff",
        "\uffff",
        "a*" + "x".repeat(500),
        "/[a-z]{1000}/",
        "*",
        "?",
        "a~2",
        "((((",
        "[a TO",
        "\"unterminated",
        "title:",
        "x^99999999999",
        "a AND OR b",
        "/(a|b)*c{100,}/",
        "NOT",
        "\\",
        "{}",
        "%s%n",
        "ev:",
        "ev:nope",
        "01JC7X00000000000000000001",
        "2026-13-45T99:99:99Z",
        "null",
        "true",
        "-1",
        "1e400",
    };

    /** One request line: {@code params} mutated one to three times, sometimes the envelope or the raw line too. */
    private static String mutate(Random rnd, String method, ObjectNode params, int id) throws IOException {
        ObjectNode req = F.objectNode();
        req.put("jsonrpc", "2.0");
        req.put("id", id);
        req.put("method", method);
        req.set("params", params);
        int n = 1 + rnd.nextInt(3);
        for (int k = 0; k < n; k++) {
            int where = rnd.nextInt(20);
            if (where == 0) {
                mutateEnvelope(rnd, req);
            } else {
                mutateSomewhere(rnd, req, "params");
            }
        }
        String line = ESCAPING.writeValueAsString(req);
        int raw = rnd.nextInt(25);
        if (raw == 0) {
            return line.substring(0, rnd.nextInt(line.length())); // truncated: malformed JSON
        } else if (raw == 1) {
            int at = rnd.nextInt(line.length());
            return line.substring(0, at) + "\"}]{,:\\u" + line.substring(at); // garbage inside
        }
        return line;
    }

    private static void mutateEnvelope(Random rnd, ObjectNode req) {
        switch (rnd.nextInt(5)) {
            case 0 -> req.set("params", evilValue(rnd));
            case 1 -> req.put("jsonrpc", evilString(rnd));
            case 2 ->
                req.set(
                        "id",
                        rnd.nextBoolean()
                                ? F.numberNode(new BigInteger("99999999999999999999999"))
                                : F.textNode(evilString(rnd)));
            case 3 -> req.put(evilString(rnd), 1);
            default -> req.put("method", evilString(rnd));
        }
    }

    /** Applies one mutation at a random node under {@code req.field}. */
    private static void mutateSomewhere(Random rnd, ObjectNode req, String field) {
        List<Object[]> spots = new ArrayList<>(); // {container, key-or-index}
        collect(req, field, spots);
        Object[] spot = spots.get(rnd.nextInt(spots.size()));
        JsonNode container = (JsonNode) spot[0];
        JsonNode current =
                container instanceof ObjectNode o ? o.get((String) spot[1]) : container.get((Integer) spot[1]);
        JsonNode replacement;
        switch (rnd.nextInt(10)) {
            case 0, 1, 2 ->
                replacement = current != null && current.isTextual() && rnd.nextBoolean()
                        ? F.textNode(
                                rnd.nextBoolean()
                                        ? current.asText() + evilString(rnd)
                                        : evilString(rnd) + current.asText())
                        : F.textNode(evilString(rnd));
            case 3 -> replacement = evilValue(rnd);
            case 4 -> replacement = evilNumber(rnd);
            // Past the parser's limit of 1,000 either way; deeper, this test's own recursive printing of
            // the request could overflow its stack while the JIT has not compiled it yet.
            case 5 -> replacement = nested(rnd, new int[] {5, 100, 900, 999, 1100, 1500}[rnd.nextInt(6)]);
            case 6 -> {
                remove(container, spot[1]);
                return;
            }
            case 7 -> {
                if (current instanceof ObjectNode o) {
                    o.set(evilString(rnd), evilValue(rnd));
                } else if (current instanceof ArrayNode a) {
                    a.add(a.isEmpty() ? evilValue(rnd) : a.get(0).deepCopy());
                    a.add(evilValue(rnd));
                } else if (container instanceof ObjectNode o) {
                    o.set(evilString(rnd), current);
                }
                return;
            }
            case 8 ->
                replacement = F.textNode(new String[] {
                            "x".repeat(251),
                            "y".repeat(300),
                            "z".repeat(5000),
                            "a/".repeat(200) + "b",
                            "\u00e9".repeat(200)
                        }
                        [rnd.nextInt(5)]);
            default -> {
                if (container instanceof ObjectNode o && spot[1] instanceof String k) { // same value under an evil key
                    JsonNode v = o.remove(k);
                    o.set(k + evilString(rnd), v);
                    return;
                }
                replacement = F.nullNode();
            }
        }
        set(container, spot[1], replacement);
    }

    private static void collect(JsonNode container, Object key, List<Object[]> out) {
        out.add(new Object[] {container, key});
        JsonNode v = container instanceof ObjectNode o ? o.get((String) key) : container.get((Integer) key);
        if (v instanceof ObjectNode o) {
            for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
                collect(o, it.next(), out);
            }
        } else if (v instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                collect(a, i, out);
            }
        }
    }

    private static void set(JsonNode container, Object key, JsonNode v) {
        if (container instanceof ObjectNode o) {
            o.set((String) key, v);
        } else {
            ((ArrayNode) container).set((Integer) key, v);
        }
    }

    private static void remove(JsonNode container, Object key) {
        if (container instanceof ObjectNode o) {
            if (!"params".equals(key)) {
                o.remove((String) key);
            }
        } else {
            ((ArrayNode) container).remove((int) (Integer) key);
        }
    }

    private static String evilString(Random rnd) {
        return EVIL[rnd.nextInt(EVIL.length)];
    }

    private static JsonNode evilNumber(Random rnd) {
        return switch (rnd.nextInt(9)) {
            case 0 -> F.numberNode(-1);
            case 1 -> F.numberNode(0);
            case 2 -> F.numberNode(2147483648L);
            case 3 -> F.numberNode(Long.MIN_VALUE);
            case 4 -> F.numberNode(new BigInteger("123456789012345678901234567890"));
            case 5 -> F.numberNode(1e308);
            case 6 -> F.numberNode(-0.0);
            case 7 -> F.numberNode(1.5);
            default -> F.numberNode(new java.math.BigDecimal("1e-400"));
        };
    }

    private static JsonNode evilValue(Random rnd) {
        return switch (rnd.nextInt(8)) {
            case 0 -> F.nullNode();
            case 1 -> F.booleanNode(rnd.nextBoolean());
            case 2 -> evilNumber(rnd);
            case 3 -> F.arrayNode().add(evilString(rnd));
            case 4 -> F.objectNode().put(evilString(rnd), evilString(rnd));
            case 5 -> F.arrayNode();
            case 6 -> F.objectNode();
            default -> F.textNode(evilString(rnd));
        };
    }

    private static JsonNode nested(Random rnd, int depth) {
        JsonNode n = F.textNode(evilString(rnd));
        for (int i = 0; i < depth; i++) {
            n = rnd.nextBoolean() ? F.arrayNode().add(n) : F.objectNode().set("a", n);
        }
        return n;
    }

    private static String abbreviate(String s) {
        return s.length() > 400 ? s.substring(0, 400) + "...(" + s.length() + " chars)" : s;
    }
}
