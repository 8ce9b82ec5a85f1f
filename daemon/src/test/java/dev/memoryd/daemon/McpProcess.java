package dev.memoryd.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.cli.Main;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real {@code memoryd mcp} child process spoken to as an MCP client does: newline-delimited
 * JSON-RPC on its stdin and stdout. Every stdout line is kept ({@link #stdout}) so tests can check
 * it carries nothing but protocol messages; stderr goes to a log file. Requests may be sent from
 * several threads at once; replies are matched by id.
 */
final class McpProcess implements AutoCloseable {
    private final Process process;
    private final OutputStream stdin;
    private final Path log;
    private final List<String> stdout = Collections.synchronizedList(new ArrayList<>());
    private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    private McpProcess(Process process, Path log) {
        this.process = process;
        this.stdin = process.getOutputStream();
        this.log = log;
        Thread reader = new Thread(this::readLoop, "mcp-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code memoryd mcp --root root} with {@code extraArgs}, its stderr appended to {@code log}. */
    static McpProcess start(Path root, Path log, String... extraArgs) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "mcp",
                "--root",
                root.toString()));
        cmd.addAll(List.of(extraArgs));
        Process p = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new McpProcess(p, log);
    }

    private void readLoop() {
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                stdout.add(line);
                JsonNode msg;
                try {
                    msg = JsonRpc.MAPPER.readTree(line);
                } catch (IOException e) {
                    continue; // kept in stdout, where the test that reads it fails
                }
                JsonNode id = msg.get("id");
                if (id != null && id.isIntegralNumber() && (msg.has("result") || msg.has("error"))) {
                    CompletableFuture<JsonNode> f = pending.remove(id.asLong());
                    if (f != null) {
                        f.complete(msg);
                    }
                }
            }
        } catch (IOException e) {
            // the process ended; pending requests time out and say so
        }
    }

    /** Sends a request and returns the whole reply ({@code result} or {@code error}). */
    JsonNode request(String method, JsonNode params) throws Exception {
        CompletableFuture<JsonNode> f = send(method, params);
        try {
            return f.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no reply to " + method + " within 60 s; stderr:\n" + logTail());
        }
    }

    /** Sends a request without waiting; the reply once it comes. */
    CompletableFuture<JsonNode> send(String method, JsonNode params) throws IOException {
        long id = ids.incrementAndGet();
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        pending.put(id, f);
        ObjectNode req = JsonRpc.MAPPER
                .createObjectNode()
                .put("jsonrpc", "2.0")
                .put("id", id)
                .put("method", method);
        if (params != null) {
            req.set("params", params);
        }
        send(req);
        return f;
    }

    void notify(String method) throws IOException {
        send(JsonRpc.MAPPER.createObjectNode().put("jsonrpc", "2.0").put("method", method));
    }

    private void send(JsonNode msg) throws IOException {
        // Non-ASCII escaped, as JSON.stringify escapes a lone surrogate: what a client sends is what a test asked.
        byte[] b = (JsonRpc.MAPPER
                                .writer()
                                .with(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII)
                                .writeValueAsString(msg)
                        + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        synchronized (stdin) {
            stdin.write(b);
            stdin.flush();
        }
    }

    /** The MCP handshake as {@code clientName}; the {@code initialize} result. */
    JsonNode initialize(String clientName) throws Exception {
        JsonNode r = request(
                "initialize",
                TestRoot.json("{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}," + "\"clientInfo\":{\"name\":\""
                        + clientName + "\",\"version\":\"1.0\"}}"));
        notify("notifications/initialized");
        return r;
    }

    /** {@code tools/call}; the call's result (a tool error is a result with {@code isError: true}). */
    JsonNode callTool(String name, String argumentsJson) throws Exception {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("name", name);
        p.set("arguments", TestRoot.json(argumentsJson));
        JsonNode r = request("tools/call", p);
        if (!r.has("result")) {
            throw new AssertionError("tools/call " + name + " was a protocol error: " + r);
        }
        return r.get("result");
    }

    /** Every line the process wrote to stdout so far. */
    List<String> stdout() {
        synchronized (stdout) {
            return List.copyOf(stdout);
        }
    }

    String logTail() {
        try {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /** Closes stdin (the client leaving) and waits for the process to exit; its exit code. */
    int closeInput() throws Exception {
        stdin.close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("memoryd mcp did not exit within 30 s of stdin closing; stderr:\n" + logTail());
        }
        return process.exitValue();
    }

    @Override
    public void close() throws Exception {
        try {
            stdin.close();
        } catch (IOException e) {
            // already closed
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
