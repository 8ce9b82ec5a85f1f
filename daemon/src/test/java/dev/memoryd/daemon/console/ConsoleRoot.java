package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.app.Daemon;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A memory root with the example tree, a real daemon serving it over its socket (in this JVM,
 * as TestRoot does), and a console in front of it on a free port of 127.0.0.1.
 */
final class ConsoleRoot implements AutoCloseable {
    static final String CRITIC = "users/sam/parts/inner-critic/profile.md";
    static final String YOUNG = "users/sam/parts/young-one/profile.md";
    static final String ACTOR = "human:Console Tester <tester@example.com>";

    final Path dir;
    final MemorydConfig cfg;
    Daemon daemon;
    ConsoleServer console;
    final List<String> loginUrls = new ArrayList<>();

    ConsoleRoot(Path tmp) throws IOException {
        dir = tmp.resolve("memory");
        cfg = MemorydConfig.defaults(dir, tmp.resolve("keys/ledger.key")).withIdleTimeout(Duration.ofSeconds(10));
        Memoryd.init(cfg, exampleTree());
    }

    /** Starts the daemon (recording the example tree as imported) and the console. */
    ConsoleRoot serve() throws IOException {
        startDaemon();
        return startConsole(ACTOR);
    }

    ConsoleRoot startDaemon() throws IOException {
        daemon = Daemon.start(cfg, false);
        call("capture", "{}");
        return this;
    }

    ConsoleRoot startConsole(String actor) throws IOException {
        console = ConsoleServer.start(
                new ConsoleServer.Options(dir, cfg.socket(), InetAddress.getLoopbackAddress(), false, 0, actor),
                loginUrls::add);
        return this;
    }

    static Path exampleTree() {
        try {
            return Path.of(
                    ConsoleRoot.class.getClassLoader().getResource("users").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    String base() {
        return console.base();
    }

    /** One socket call to the daemon; the whole reply. */
    JsonNode call(String method, String paramsJson) throws IOException {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
            return c.call(method, paramsJson == null ? null : JsonRpc.MAPPER.readTree(paramsJson));
        }
    }

    /** One socket call that must succeed; its result. */
    JsonNode ok(String method, String paramsJson) throws IOException {
        JsonNode r = call(method, paramsJson);
        if (!r.has("result")) {
            throw new AssertionError(method + " " + paramsJson + " answered " + r);
        }
        return r.get("result");
    }

    String file(String rel) throws IOException {
        return Files.readString(dir.resolve(rel));
    }

    /** Replaces {@code from} by {@code to} in a memory file, as a human's editor would, and captures it. */
    void humanEdit(String rel, String from, String to) throws IOException {
        String t = file(rel);
        if (!t.contains(from)) {
            throw new AssertionError(rel + " lacks " + from);
        }
        Files.writeString(dir.resolve(rel), t.replace(from, to));
        call("capture", "{}");
    }

    /** The ids of the open drift items, oldest first. */
    List<String> driftIds() throws IOException {
        List<String> ids = new ArrayList<>();
        ok("drift.list", null).path("items").forEach(i -> ids.add(i.path("id").asText()));
        return ids;
    }

    /** Marks a section of the critic's profile for review, so an agent's write to it becomes a proposal. */
    void markForReview(String anchor) throws IOException {
        humanEdit(CRITIC, "    last_updated:", "    review_sections: [" + anchor + "]\n    last_updated:");
    }

    /** An agent's write replacing a section; with the section marked for review, the proposal's id. */
    String propose(String section, String content, String rationale, String evidenceToken) throws IOException {
        String ev = evidenceToken == null ? "" : ",\"evidence_refs\":[\"" + evidenceToken + "\"]";
        JsonNode r = ok(
                "write",
                "{\"rationale\":" + JsonRpc.MAPPER.writeValueAsString(rationale) + ",\"actor\":\"agent-7\","
                        + "\"ops\":[{\"op\":\"replace_section\",\"path\":\"" + CRITIC + "\",\"section\":\"" + section
                        + "\",\"content\":"
                        + JsonRpc.MAPPER.writeValueAsString(content) + ev + "}]}");
        return r.path("proposal").asText();
    }

    /** Runs the real git CLI in the root; fails on a non-zero exit. */
    String git(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new AssertionError("git " + String.join(" ", args) + " failed: " + out);
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        if (console != null) {
            console.close();
        }
        if (daemon != null) {
            daemon.close();
        }
    }
}
