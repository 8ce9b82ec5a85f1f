package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every kind of bad input gets a precise error (or a closed connection) and changes nothing. */
class BadInputTest {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";

    @TempDir
    Path tmp;

    TestRoot root;
    String treeBefore;

    @BeforeEach
    void up() throws Exception {
        root = new TestRoot(tmp, Duration.ofMillis(500)).serve();
        treeBefore = snapshot();
    }

    @AfterEach
    void down() throws Exception {
        try {
            assertEquals(treeBefore, snapshot(), "bad input changed the root");
            JsonNode ping = root.call("ping", null);
            assertTrue(ping.has("result"), "daemon stopped serving after bad input");
        } finally {
            root.close();
        }
    }

    /**
     * Files, ledger and branch head, as one string. The git directory and {@code .memoryd} are not
     * walked: the daemon makes and removes files there on threads of its own (the index before a
     * batch's is removed after the batch), and a walk that lists one may find it gone.
     */
    private String snapshot() throws Exception {
        java.util.List<Path> files = new java.util.ArrayList<>();
        Files.walkFileTree(root.dir, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult preVisitDirectory(
                    Path d, java.nio.file.attribute.BasicFileAttributes a) {
                String name = d.getFileName().toString();
                return !d.equals(root.dir) && (name.equals(".git") || name.equals(".memoryd"))
                        ? java.nio.file.FileVisitResult.SKIP_SUBTREE
                        : java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFile(Path f, java.nio.file.attribute.BasicFileAttributes a) {
                if (a.isRegularFile() && !root.dir.relativize(f).toString().startsWith(".memoryd")) {
                    files.add(f);
                }
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
        java.util.Collections.sort(files);
        StringBuilder sb = new StringBuilder();
        for (Path p : files) {
            // bytes, not text: a test may leave a file that is not UTF-8
            sb.append(root.dir.relativize(p))
                    .append('\n')
                    .append(new String(Files.readAllBytes(p), java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        sb.append(Files.readString(root.dir.resolve(".git/refs/heads/main")));
        return sb.toString();
    }

    private JsonNode raw(String line) throws Exception {
        try (SocketClient c = root.client()) {
            return JsonRpc.MAPPER.readTree(c.raw(line));
        }
    }

    private static String reason(JsonNode r) {
        return r.path("error").path("data").path("reason").asText();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{not json|invalid_request",
                "[1,2]|invalid_request",
                "\"just a string\"|invalid_request",
                "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\"}|unknown_method",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[1]}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{}}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"frobnicate\"}]}}|invalid_op",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"delete_file\",\"path\":\"users/sam/overview.md\"}]}}|prohibited",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"replace_section\",\"path\":\""
                        + CRITIC + "\",\"section\":\"Role\"}]}}|invalid_op",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"replace_section\",\"path\":\""
                        + CRITIC + "\",\"section\":\"Role\",\"content\":42}]}}|invalid_op",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"replace_section\",\"path\":\""
                        + CRITIC + "\",\"section\":\"Bogus\",\"content\":\"x\"}]}}|unknown_section",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"replace_section\",\"path\":\""
                        + CRITIC + "\",\"section\":\"Change Log\",\"content\":\"x\"}]}}|prohibited",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"replace_section\",\"path\":\"../etc/passwd\",\"section\":\"Role\",\"content\":\"x\"}]}}|invalid_op",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"replace_section\",\"path\":\"/etc/passwd\",\"section\":\"Role\",\"content\":\"x\"}]}}|invalid_op",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"replace_section\",\"path\":\".git/config\",\"section\":\"Role\",\"content\":\"x\"}]}}|invalid_op",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"replace_section\",\"path\":\"users/sam/\\u0000x.md\",\"section\":\"Role\",\"content\":\"x\"}]}}|invalid_op",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"replace_section\",\"path\":\"users/nobody/overview.md\",\"section\":\"Identity\",\"content\":\"x\"}]}}|not_found",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"../../etc/passwd\"}}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{}}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"users/sam/overview.md\",\"extra\":1}}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"history\",\"params\":{\"path\":\"../x.md\"}}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"history\",\"params\":{\"path\":\"/etc/passwd\"}}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"history\",\"params\":{\"path\":\"users/sam/\\u0000x.md\"}}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resolve\",\"params\":{\"token\":\"ev:nope\"}}|invalid_request",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resolve\",\"params\":{\"token\":\"ev:20260101T000000Z-01JC0000000000000000000000\"}}|not_found",
            })
    void badRequest_getsPreciseReason(String line, String reason) throws Exception {
        JsonNode r = raw(line);
        assertEquals(reason, reason(r), r.toString());
        assertTrue(r.path("error").path("message").asText().length() > 5, r.toString());
    }

    /** A valid write still commits (the writer did not stop); the tree it changes is the new baseline. */
    private void assertWriterStillWrites() throws Exception {
        JsonNode w = root.call(
                "write",
                "{\"ops\":[{\"op\":\"append_item\",\"path\":\"users/sam/overview.md\","
                        + "\"section\":\"Confirmed Parts\",\"item\":\"still writing " + System.nanoTime()
                        + "\"}],\"rationale\":\"r\"}");
        assertTrue(w.has("result"), "the writer must keep writing after bad input: " + w);
        treeBefore = snapshot();
    }

    private static final String W = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{";
    private static final String ITEM =
            "{\"op\":\"append_item\",\"path\":\"users/sam/overview.md\",\"section\":\"Confirmed Parts\",\"item\":";

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                W + "\"ops\":[" + ITEM + "\"x \\ud800\"}],\"rationale\":\"r\"}}|params.ops[0].item",
                W + "\"ops\":[" + ITEM + "\"x\"}],\"rationale\":\"r \\udfff\"}}|params.rationale",
                W + "\"ops\":[" + ITEM + "\"x\"}],\"actor\":\"\\udc00\\ud800\"}}|params.actor",
                W + "\"ops\":[" + ITEM + "\"x\",\"\\ud800\":1}]}}|params.ops[0]",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"slip.send\",\"params\":{\"message\":{\"conv_id\":1,\"turn\":1,\"src\":0,\"dst\":1,"
                        + "\"act\":\"ASK\",\"frame\":\"TASK\",\"slots\":{\"topic\":\"a\\ud800\"}}}}|params.message.slots.topic",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"users/\\ud800.md\"}}|params.path",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"lint\",\"params\":{\"path\":\"\\ud800\"}}|params.path",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"branch.merge\",\"params\":{\"from\":\"\\ud800\"}}|params.from",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"branch.create\",\"params\":{\"name\":\"b\\ud800\"}}|params.name",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"branch.delete\",\"params\":{\"name\":\"\\udc00\\ud800\"}}|params.name",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"" + CRITIC
                        + "\",\"branch\":\"\\ud800\"}}|params.branch",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"scope\",\"params\":{\"scopes\":[\"x\"],\"branch\":\"\\ud800\"}}|params.branch",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"search\",\"params\":{\"q\":\"\\ud800*\"}}|params.q",
            })
    void loneSurrogateAnywhere_isInvalidRequestNamingTheField_andWriterKeepsWriting(String line, String field)
            throws Exception {
        JsonNode r = raw(line);
        assertEquals("invalid_request", reason(r), r.toString());
        assertEquals(field, r.path("error").path("data").path("field").asText(), r.toString());
        assertTrue(r.path("error").path("message").asText().contains("lone surrogate"), r.toString());
        assertEquals(1, r.path("id").asInt(), "the reply answers the request: " + r);
        assertWriterStillWrites();
    }

    @Test
    void loneSurrogateInIdOrMemberName_orInfiniteNumber_isInvalidRequestNamingWhere() throws Exception {
        JsonNode id = raw("{\"jsonrpc\":\"2.0\",\"id\":\"a\\ud800\",\"method\":\"ping\"}");
        assertEquals("invalid_request", reason(id), id.toString());
        assertEquals("id", id.path("error").path("data").path("field").asText(), id.toString());
        assertTrue(id.get("id").isNull(), "an id that cannot be written back is answered as null: " + id);
        JsonNode key = raw("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"\\udfff\":1}");
        assertEquals("request", key.path("error").path("data").path("field").asText(), key.toString());
        JsonNode inf = raw("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"history\",\"params\":{\"path\":\"" + CRITIC
                + "\",\"limit\":1e400}}");
        assertEquals(
                "params.limit", inf.path("error").path("data").path("field").asText(), inf.toString());
        assertTrue(inf.path("error").path("message").asText().contains("out of range"), inf.toString());
    }

    @Test
    void controlCharacterInMemoryTextOrRationale_isRefusedNamingTheField_tabAndNewlineAreNot() throws Exception {
        JsonNode item = raw(W + "\"ops\":[" + ITEM + "\"a\\u0000b\"}],\"rationale\":\"r\"}}");
        assertEquals("invalid_op", reason(item), item.toString());
        assertEquals(
                "ops[0].item", item.path("error").path("data").path("field").asText(), item.toString());
        JsonNode content = raw(W + "\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + CRITIC
                + "\",\"section\":\"Role\",\"content\":\"\\u001b[31mred\"}]}}");
        assertEquals(
                "ops[0].content",
                content.path("error").path("data").path("field").asText(),
                content.toString());
        JsonNode rationale = raw(W + "\"ops\":[" + ITEM + "\"x\"}],\"rationale\":\"r\\u0000\"}}");
        assertEquals("invalid_request", reason(rationale), rationale.toString());
        assertEquals(
                "params.rationale",
                rationale.path("error").path("data").path("field").asText(),
                rationale.toString());
        // an empty actor was recorded as "agent", the default of one left out
        for (String blank : new String[] {"", "  "}) {
            JsonNode actor = raw(W + "\"ops\":[" + ITEM + "\"x\"}],\"rationale\":\"r\",\"actor\":\"" + blank + "\"}}");
            assertEquals("invalid_request", reason(actor), actor.toString());
            assertEquals(
                    "params.actor",
                    actor.path("error").path("data").path("field").asText(),
                    actor.toString());
        }
        assertEquals(treeBefore, snapshot(), "refused writes change nothing");
        JsonNode ok = raw(W + "\"ops\":[" + ITEM + "\"tab\\there\"}],\"rationale\":\"line one\\n\\tline two\"}}");
        assertTrue(ok.has("result"), ok.toString());
        assertTrue(root.file("users/sam/overview.md").contains("- tab\there"), "the item is written as sent");
        treeBefore = snapshot();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "branch.create|{\"name\":\"refs/heads/main\"}|starts with refs/",
                "branch.create|{\"name\":\"HEAD\"}|HEAD",
                "branch.create|{\"name\":\"-rf\"}|starts with -",
                "branch.create|{\"name\":\"a\\u0001b\"}|control character",
                "branch.create|{\"name\":\"LONG300\"}|longer than 100 bytes",
                "branch.create|{\"name\":\"feature\",\"from\":\"refs/heads/main\"}|starts with refs/",
                "branch.delete|{\"name\":\"LONG300\"}|longer than 100 bytes",
                "branch.merge|{\"from\":\"refs/heads/main\"}|starts with refs/",
                "branch.merge|{\"from\":\"main\",\"into\":\"LONG300\"}|longer than 100 bytes",
                "read|{\"path\":\"" + CRITIC + "\",\"branch\":\"LONG300\"}|longer than 100 bytes",
                "scope|{\"scopes\":[\"x\"],\"branch\":\"refs/heads/main\"}|starts with refs/",
                "write|{\"ops\":[{\"op\":\"append_item\",\"path\":\"" + CRITIC
                        + "\",\"section\":\"Role\",\"item\":\"x\"}],\"branch\":\"LONG300\"}|longer than 100 bytes",
            })
    void badBranchName_isInvalidRequestNamingTheRule(String method, String params, String rule) throws Exception {
        JsonNode r = root.call(method, params.replace("LONG300", "b".repeat(300)));
        assertEquals("invalid_request", reason(r), r.toString());
        assertTrue(r.path("error").path("message").asText().contains(rule), r.toString());
        assertTrue(
                r.path("error").path("message").asText().length() < 250, "the message does not echo a long name: " + r);
    }

    @Test
    void overlongBranchName_leavesNoChainDirectory_andTheRootServesAfterRestart() throws Exception {
        Path ledger = root.dir.resolve("ledger");
        List<Path> before;
        try (var s = Files.list(ledger)) {
            before = s.sorted().toList();
        }
        JsonNode r = root.call("branch.create", "{\"name\":\"" + "n".repeat(251) + "\"}");
        assertEquals("invalid_request", reason(r), r.toString());
        try (var s = Files.list(ledger)) {
            assertEquals(before, s.sorted().toList(), "no chain directory for a refused branch");
        }
        assertEquals("", root.git("for-each-ref", "refs/heads/n*"), "no ref");
        root.close();
        root.serveAsIs();
        assertTrue(root.call("ping", null).has("result"), "the root serves after a restart");
        assertWriterStillWrites();
    }

    @Test
    void wildcardTooComplexToCompile_isInvalidRequest() throws Exception {
        JsonNode r = root.call("search", "{\"q\":\"a*" + "x".repeat(500) + "\"}");
        assertEquals("invalid_request", reason(r), r.toString());
        assertTrue(r.path("error").path("message").asText().contains("too complex"), r.toString());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{not json|line 1, column 2|was expecting double-quote to start field name",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"|line 1, column 40|expected close marker for Object (start marker at line 1, column 1)",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} {\"id\":2}|line 1, column 42|content after the request object",
                "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}]|line 1, column 34|Unexpected close marker ']'",
            })
    void malformedJson_saysWhereAndWhatWasExpected_inOneLine(String line, String where, String what) throws Exception {
        // Bounded: content after a complete object used to be dropped, leaving a notification nobody answers.
        JsonNode r = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> raw(line));
        assertEquals("invalid_request", reason(r), r.toString());
        String msg = r.path("error").path("message").asText();
        assertTrue(msg.startsWith("malformed JSON at " + where + ": "), msg);
        assertTrue(msg.contains(what), msg);
        assertTrue(!msg.contains("REDACTED") && !msg.contains("Source") && !msg.contains("\n"), msg);
        assertEquals(-32700, r.path("error").path("data").path("rpc_code").asInt(), r.toString());
    }

    @Test
    void symlinkLeadingOutOfRoot_isRefused() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("profile.md"), "secret");
        Files.createSymbolicLink(root.dir.resolve("users/sam/parts/evil"), outside);
        treeBefore = snapshot();
        JsonNode r = raw(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"users/sam/parts/evil/profile.md\"}}");
        assertEquals("invalid_request", reason(r), r.toString());
        JsonNode w = raw(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write\",\"params\":{\"rationale\":\"r\",\"ops\":[{\"op\":\"replace_section\",\"path\":\"users/sam/parts/evil/profile.md\",\"section\":\"Role\",\"content\":\"x\"}]}}");
        assertTrue(w.has("error"), w.toString());
        assertEquals("secret", Files.readString(outside.resolve("profile.md")));
    }

    /**
     * A memory file that is itself a symbolic link, or whose bytes are not UTF-8: {@code read} of it
     * is {@code drift} naming what is wrong, {@code lint} reports it as a finding; neither is
     * {@code internal}, and the link's target is never read. Before, both replies were {@code
     * internal} ("internal error: ...NotUtf8"), or {@code invalid_request} for the link as if the
     * request's path were at fault.
     */
    @Test
    void aMemoryFileThatIsALinkOrNotUtf8_readIsDrift_lintIsAFinding_neverInternal() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("elsewhere")).resolve("profile.md");
        Files.writeString(outside, "secret");
        Path link = root.dir.resolve("users/sam/parts/young-one/profile.md");
        Files.delete(link);
        Files.createSymbolicLink(link, outside);
        Path latin1 = root.dir.resolve("users/sam/overview.md");
        byte[] good = Files.readAllBytes(latin1);
        byte[] bad = java.util.Arrays.copyOf(good, good.length + 1);
        bad[good.length] = (byte) 0xE9;
        Files.write(latin1, bad);
        treeBefore = snapshot();
        JsonNode r = raw(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"users/sam/parts/young-one/profile.md\"}}");
        assertEquals("drift", reason(r), r.toString());
        assertTrue(r.toString().contains("is a symbolic link (to " + outside + ")"), r.toString());
        assertFalse(r.toString().contains("secret"), r.toString());
        JsonNode n = raw(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"users/sam/overview.md\"}}");
        assertEquals("drift", reason(n), n.toString());
        assertTrue(n.toString().contains("is not valid UTF-8 (byte " + good.length + ")"), n.toString());
        for (String path : new String[] {"users/sam/parts/young-one/profile.md", "users/sam/overview.md"}) {
            JsonNode l =
                    raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"lint\",\"params\":{\"path\":\"" + path + "\"}}");
            assertTrue(l.has("result"), l.toString());
            assertTrue(l.toString().contains(path.contains("young") ? "\"symlink\"" : "\"not-utf8\""), l.toString());
        }
        JsonNode all = raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"lint\",\"params\":{}}");
        assertTrue(all.toString().contains("\"symlink\"") && all.toString().contains("\"not-utf8\""), all.toString());
    }

    @Test
    void lineOverLimit_isRejectedAsTooLarge_andConnectionKeepsServing() throws Exception {
        try (SocketClient c = root.client()) {
            String big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\""
                    + "x".repeat(1 << 20) + "\"}}";
            JsonNode r = JsonRpc.MAPPER.readTree(c.raw(big));
            assertEquals("too_large", reason(r), r.toString());
            JsonNode ok = c.call("ping", null);
            assertTrue(ok.has("result"));
        }
    }

    @Test
    void binaryGarbage_getsError_notACrash() throws Exception {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(root.cfg.socket()));
            byte[] junk = new byte[4096];
            new java.util.Random(7).nextBytes(junk);
            for (int i = 0; i < junk.length; i++) {
                if (junk[i] == '\n') {
                    junk[i] = 0;
                }
            }
            ch.write(ByteBuffer.wrap(junk));
            ch.write(ByteBuffer.wrap("\n".getBytes()));
            InputStream in = Channels.newInputStream(ch);
            String line = new String(readLine(in), StandardCharsets.UTF_8);
            assertEquals("invalid_request", reason(JsonRpc.MAPPER.readTree(line)), line);
        }
    }

    @Test
    void halfLineThenStall_isClosedAfterIdleTimeout_othersUnaffected() throws Exception {
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(root.cfg.socket()));
                ch.write(ByteBuffer.wrap("{\"jsonrpc\":\"2.0\",\"id\":1,\"meth".getBytes()));
                JsonNode other = root.call("ping", null);
                assertTrue(other.has("result"), "another client must be served while one stalls");
                ByteBuffer b = ByteBuffer.allocate(16);
                assertEquals(-1, ch.read(b), "stalled connection should be closed by the daemon");
            }
        });
    }

    @Test
    void clientDisconnectingMidRequest_doesNotHurtDaemon() throws Exception {
        for (int i = 0; i < 20; i++) {
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(root.cfg.socket()));
                ch.write(ByteBuffer.wrap(
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"path\":\"".getBytes()));
            }
        }
        JsonNode r = root.call("read", "{\"path\":\"" + CRITIC + "\"}");
        assertTrue(r.has("result"), r.toString());
    }

    @Test
    void notification_getsNoReply_butLaterRequestsDo() throws Exception {
        try (SocketClient c = root.client()) {
            String reply = c.raw(
                    "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
            JsonNode r = JsonRpc.MAPPER.readTree(reply);
            assertEquals(9, r.get("id").asInt());
            assertNull(r.get("error"));
        }
    }

    private static byte[] readLine(InputStream in) throws Exception {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (int c; (c = in.read()) != -1 && c != '\n'; ) {
            b.write(c);
        }
        return b.toByteArray();
    }
}
