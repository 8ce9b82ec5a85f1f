package dev.memoryd.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.cli.RootCommand;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code memoryd bench}: makes a root (a fresh temp dir unless {@code --root}), starts a real
 * daemon on it as a child process, drives it over its socket with the scenario {@code --mode}
 * names, stops it and prints the figures as one JSON line. A run in a temp dir removes what it made.
 * Ships in its own jar, not the daemon's; {@link #main} runs the whole {@code memoryd} command tree
 * with this command added, so usage, help and errors read as every other command's.
 */
@Command(name = "bench", description = "Benchmark the write path against a real daemon; prints one JSON line.")
public final class BenchCommand implements Callable<Integer> {
    static final List<String> MODES = List.of(
            "write", "slip", "context", "human", "replay", "scope", "refs", "merge", "sync", "mcp", "peer", "filesize");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--clients", defaultValue = "1", description = "clients sending at once (write and slip modes)")
    int clients;

    @Option(names = "--writes", defaultValue = "2000", description = "measured declarations in total")
    int writes;

    @Option(names = "--history", defaultValue = "0", description = "events to pre-fill before measuring")
    int history;

    @Option(
            names = "--warmup",
            defaultValue = "6000",
            description = "declarations sent before measuring, by as many"
                    + " clients as measured, so the figures are a running daemon's rather than a fresh JVM's (300: a fresh"
                    + " daemon's first seconds; the output's jit_ms_measured says how much compiling was left)")
    int warmup;

    @Option(names = "--root", description = "root to use (default: a fresh temp dir)")
    Path root;

    @Option(names = "--floor", description = "also measure the physical floor")
    boolean floor;

    @Option(names = "--verify", description = "also measure ledger verify throughput")
    boolean verify;

    @Option(
            names = "--mode",
            defaultValue = "write",
            description = {
                "what to measure:",
                "write: declarations per second and their latency, --clients at once (with --floor, --verify)",
                "slip: SLIP relay throughput and send latency, --clients agents",
                "context: SlicePolicy context queries over a stored DAG of --turns turns",
                "human: a human's save of a section until its event is committed",
                "replay: replay --verify over a ledger of --events events",
                "scope: scope and search queries over --chunks declared chunks",
                "refs: refs reconcile of --refs file references, before and after changes",
                "merge: branch merge after --writes declarations on each of two branches",
                "sync: sync between two roots after --writes declarations on each",
                "mcp: a write (and a read) as an MCP tool call through memoryd mcp against the same call over the"
                        + " socket, --writes of each, interleaved in blocks, after --warmup of each",
                "peer: append_item to a growing list against the MCP reference memory server's add_observations (npm),"
                        + " --writes of each, interleaved in blocks, after --warmup of each",
                "filesize: append_item to a small section of a ~5 KB file against the same in a --file-kb KB file,"
                        + " --writes of each, interleaved in blocks, after --warmup of each"
            })
    String mode;

    @Option(names = "--file-kb", defaultValue = "200", description = "filesize mode: size of the large file in KB")
    int fileKb;

    @Option(names = "--turns", defaultValue = "100000", description = "context mode: turns in the stored DAG")
    int turns;

    @Option(
            names = "--per-append",
            defaultValue = "0",
            description = "context mode: turns per conversation.append" + " (0: a 200th of --turns)")
    int perAppend;

    @Option(
            names = "--sessions",
            defaultValue = "0",
            description = "context mode: sessions the turns go to, in turn" + " (0: a new session per append)")
    int sessions;

    @Option(names = "--quiet-ms", defaultValue = "2000", description = "the daemon's quiet period (human mode)")
    long quietMs;

    @Option(names = "--edits", defaultValue = "30", description = "human mode: measured saves")
    int edits;

    @Option(names = "--events", defaultValue = "100000", description = "replay mode: ledger events to build")
    int events;

    @Option(
            names = "--parts",
            defaultValue = "100",
            description = "replay mode: parts whose notes the events spread over")
    int replayParts;

    @Option(names = "--chunks", defaultValue = "100000", description = "scope mode: chunks declared")
    int chunks;

    @Option(names = "--refs", defaultValue = "1000", description = "refs mode: file references reconciled")
    int refs;

    @Option(names = "--per-declare", defaultValue = "2000", description = "scope mode: chunks per declaration")
    int perDeclare;

    @Option(
            names = "--bare-jvm",
            description = "start the daemon on the JVM's defaults instead of the launcher's" + " serve settings ("
                    + ServeJvmOptions.FILE + "), to compare them")
    boolean bareJvm;

    @Option(
            names = "--idle-s",
            defaultValue = "0",
            description = "write mode: also measure the daemon's resident"
                    + " memory after this many idle seconds, before the run and after it")
    int idleS;

    @Option(
            names = "--durability",
            defaultValue = "commit",
            description =
                    "write and peer modes: memoryd's writes' durability, commit (the default: answered once committed) or"
                            + " ledger (answered once their ledger lines are durable)")
    String durability;

    @Option(
            names = "--rate",
            defaultValue = "0",
            description = "write mode: declarations per second each client sends while measured, on a fixed"
                    + " schedule whatever the replies (open loop; latency counted from each one's scheduled"
                    + " time); 0: each sends the next on the reply (closed loop)")
    double rate;

    /** {@code memoryd} with {@code bench} among its commands; exits with the command's code. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs {@code memoryd args...} with {@code bench} among the commands; returns the exit code. */
    static int run(String... args) {
        CommandLine memoryd = RootCommand.commandLine();
        memoryd.addSubcommand(new BenchCommand());
        return memoryd.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        if (!MODES.contains(mode)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--mode must be " + String.join(", ", MODES.subList(0, MODES.size() - 1)) + " or "
                            + MODES.get(MODES.size() - 1));
        }
        Path dir = root != null ? root : Files.createTempDirectory("memoryd-bench");
        ObjectNode out = JsonRpc.MAPPER.createObjectNode();
        try {
            Path key = dir.resolveSibling(dir.getFileName() + ".key");
            MemorydConfig cfg = MemorydConfig.defaults(dir, key);
            Memoryd.init(cfg, null);
            DaemonChild child = DaemonChild.of(bareJvm, quietMs);
            Process daemon = child.start(cfg);
            try {
                scenario(child, daemon).run(cfg, out);
            } finally {
                DaemonChild.stop(daemon);
            }
            if (mode.equals("write") && verify) {
                LedgerVerifyBench.run(cfg, out);
            }
            if (mode.equals("write") && floor) {
                Disk.settle();
                out.set("floor", FloorBench.measure(dir));
            }
        } finally {
            if (root == null) {
                Disk.deleteTree(dir.getParent(), dir.getFileName().toString());
            }
        }
        System.out.println(JsonRpc.MAPPER.writeValueAsString(out));
        return 0;
    }

    private Scenario scenario(DaemonChild child, Process daemon) {
        return switch (mode) {
            case "write" -> new WriteBench(clients, writes, history, warmup, idleS, durability, rate, child, daemon);
            case "slip" -> new SlipBench(clients, writes);
            case "context" -> new ContextBench(turns, perAppend, sessions, writes, warmup, daemon);
            case "human" -> new HumanBench(edits, quietMs);
            case "replay" -> new ReplayBench(events, replayParts);
            case "scope" -> new ScopeBench(chunks, perDeclare, writes, warmup);
            case "refs" -> new RefsBench(refs);
            case "merge" -> new MergeBench(writes);
            case "sync" -> new SyncBench(writes, child);
            case "mcp" -> new McpBench(writes, warmup);
            case "peer" -> new PeerBench(writes, warmup, durability);
            case "filesize" -> new FileSizeBench(writes, warmup, fileKb, daemon);
            default -> throw new IllegalStateException("unknown mode " + mode); // MODES was checked in call()
        };
    }
}
