package dev.memoryd.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.cli.Main;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real daemon child process ({@code memoryd serve}) on a root, its output appended to a log file
 * the tests quote when an assertion fails. {@link #start} returns once the daemon answers
 * {@code ping}; {@link #close} stops it with SIGTERM, then SIGKILL if it does not stop.
 */
final class DaemonProcess implements AutoCloseable {
    private final MemorydConfig cfg;
    private final Path log;
    private final Process process;

    private DaemonProcess(MemorydConfig cfg, Path log, Process process) {
        this.cfg = cfg;
        this.log = log;
        this.process = process;
    }

    /**
     * The command line of {@code serve} on {@code root} with {@code keyFile} and {@code extraArgs},
     * in a child JVM on this test's class path (the quick JIT: tests start many).
     */
    static List<String> serveCommand(Path root, Path keyFile, String... extraArgs) {
        return serveCommand(List.of(), root, keyFile, extraArgs);
    }

    /** As {@link #serveCommand(Path, Path, String...)}, the child JVM also given {@code jvmOptions}. */
    static List<String> serveCommand(List<String> jvmOptions, Path root, Path keyFile, String... extraArgs) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "serve",
                "--root",
                root.toString(),
                "--key-file",
                keyFile.toString()));
        cmd.addAll(List.of(extraArgs));
        return cmd;
    }

    /** Starts {@code serve} on {@code cfg}'s root with {@code extraArgs}, logging to {@code log}. */
    static DaemonProcess start(MemorydConfig cfg, Path log, String... extraArgs)
            throws IOException, InterruptedException {
        return start(List.of(), cfg, log, extraArgs);
    }

    /** As {@link #start(MemorydConfig, Path, String...)}, the child JVM also given {@code jvmOptions}. */
    static DaemonProcess start(List<String> jvmOptions, MemorydConfig cfg, Path log, String... extraArgs)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(serveCommand(jvmOptions, cfg.root(), cfg.keyFile(), extraArgs))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        DaemonProcess d = new DaemonProcess(cfg, log, p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new AssertionError("daemon exited with " + p.exitValue() + "; log:\n" + d.logTail(80));
            }
            try (SocketClient c = SocketClient.connect(cfg.socket())) {
                if (c.call("ping", null).has("result")) {
                    return d;
                }
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        p.destroyForcibly();
        throw new AssertionError("daemon did not come up within 60 s; log:\n" + d.logTail(80));
    }

    Process process() {
        return process;
    }

    MemorydConfig config() {
        return cfg;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    SocketClient client() throws IOException {
        return SocketClient.connect(cfg.socket());
    }

    /** One request on a fresh connection; the whole reply ({@code result} or {@code error}). */
    JsonNode call(String method, String paramsJson) throws IOException {
        try (SocketClient c = client()) {
            return c.call(method, paramsJson == null ? null : TestRoot.json(paramsJson));
        }
    }

    /** The {@code result} of a request that must succeed; an assertion naming the error otherwise. */
    JsonNode result(String method, String paramsJson) throws IOException {
        JsonNode r = call(method, paramsJson);
        if (!r.has("result")) {
            throw new AssertionError(method + " failed: " + r + "\n--- daemon log tail ---\n" + logTail(60));
        }
        return r.get("result");
    }

    /** Waits (at most 60 s) until the daemon's first start recorded the example tree's import. */
    void awaitImported() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (result("ledger.verify", null).path("lines").asInt() < TestRoot.IMPORT_LINES) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the daemon did not import the example tree within 60 s\n" + logTail(40));
            }
            Thread.sleep(20);
        }
    }

    /** The last {@code n} lines the daemon logged. */
    String logTail(int n) {
        try {
            if (!Files.exists(log)) {
                return "(no log)";
            }
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /** SIGKILL, as a crash. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
