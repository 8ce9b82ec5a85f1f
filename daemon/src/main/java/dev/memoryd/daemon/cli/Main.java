package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.client.TreeJson;
import dev.memoryd.ledger.KeyRing;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code memoryd} command line: parses flags, calls one service API, maps the outcome to an
 * exit code (0 ok, 1 the check found problems or the daemon refused, 2 usage error) and prints
 * errors to stderr in one line.
 */
@Command(
        name = "memoryd",
        versionProvider = Main.VersionProvider.class,
        // Inherited by every subcommand, nested ones too: each takes --help (and --version) and shows its defaults.
        scope = CommandLine.ScopeType.INHERIT,
        mixinStandardHelpOptions = true,
        showDefaultValues = true,
        description = "Git-backed, file-first memory daemon for AI agents.",
        subcommands = {
            HelpCmd.class,
            InitCmd.class,
            ServeCmd.class,
            PingCmd.class,
            WriteCmd.class,
            ReadCmd.class,
            LintCmd.class,
            LedgerCmd.class,
            SlipCmd.class,
            ContextCmd.class,
            ExploreCmd.class,
            SlicesCmd.class,
            SearchCmd.class,
            DeclareCmd.class,
            ScopeCmd.class,
            TraverseCmd.class,
            StaleCmd.class,
            DriftCmd.class,
            ReplayCmd.class,
            ProposalsCmd.class,
            BranchCmd.class,
            RefsCmd.class,
            ImportCmd.class,
            SyncCmd.class,
            CloneCmd.class,
            HistoryCmd.class,
            ResolveCmd.class,
            RoutineCmd.class,
            PromotionsCmd.class,
            GrammarCmd.class,
            CaptureCmd.class,
            ConversationCmd.class,
            StatusCmd.class,
            DoctorCmd.class,
            CompletionCmd.class,
            dev.memoryd.daemon.mcp.McpCommand.class,
            dev.memoryd.daemon.console.ConsoleCommand.class
        })
public final class Main implements Runnable {
    static final int OK = 0;
    static final int PROBLEMS = 1;
    static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        Callable<Integer> fast = FastArgs.parse(args); // an everyday command, without picocli's model
        if (fast != null) {
            try {
                return fast.call();
            } catch (Exception ex) {
                return failed(ex, System.err::println); // as picocli's handler below
            }
        }
        CommandLine one = SingleCommand.forArgs(args); // an everyday command starts faster alone
        return (one != null ? handlingErrors(one) : commandLine()).execute(args);
    }

    /** The whole command tree, with its error handling; {@link #run} executes it. */
    public static CommandLine commandLine() {
        return handlingErrors(new CommandLine(new Main()));
    }

    /** {@code cl} with memoryd's error handling: one line on stderr, and the exit code. */
    static CommandLine handlingErrors(CommandLine cl) {
        cl.setExecutionExceptionHandler((ex, cmd, parse) -> failed(ex, cmd.getErr()::println));
        return cl;
    }

    /** Says what went wrong on {@code err} in one line; the exit code. */
    private static int failed(Exception ex, Consumer<String> err) {
        err.accept("memoryd: " + oneLine(ex));
        // Naming the wrong key (or none) is a usage error: nothing was looked at, nothing changed.
        return ex instanceof KeyRing.MissingKeyFile ? USAGE : PROBLEMS;
    }

    static String oneLine(Throwable t) {
        String m = t.getMessage() == null ? t.toString() : t.getMessage();
        return m.replace('\n', ' ');
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"memoryd " + Memoryd.VERSION + " (protocol " + Memoryd.PROTOCOL_VERSION + ")"};
        }
    }

    /** Connects to the daemon or explains exactly how to start one. */
    static SocketClient connect(MemorydConfig cfg) throws IOException {
        try {
            return SocketClient.connect(cfg.socket(), SocketClient.commandTimeout());
        } catch (ConnectException | NoSuchFileException e) {
            throw new IOException(
                    "no memoryd is serving " + cfg.root() + " (no socket at " + cfg.socket()
                            + "); start one with: bin/memoryd serve --root " + cfg.root(),
                    e);
        } catch (IOException e) {
            if (!Files.exists(cfg.socket())) {
                throw new IOException(
                        "no memoryd is serving " + cfg.root() + "; start one with: bin/memoryd serve --root "
                                + cfg.root(),
                        e);
            }
            throw e;
        }
    }

    /** Prints a reply's result indented (exit 0) or its error in one line (exit 1). */
    static int print(JsonNode reply) throws JsonProcessingException {
        return print(reply, false);
    }

    /** Prints a reply's result, indented or as one line (exit 0), or its error in one line (exit 1). */
    static int print(JsonNode reply, boolean oneLine) throws JsonProcessingException {
        if (reply == null) {
            System.err.println("memoryd: the daemon closed the connection without a reply");
            return PROBLEMS;
        }
        if (reply.has("error")) {
            JsonNode e = reply.get("error");
            System.err.println("memoryd: " + e.path("data").path("reason").asText("error") + ": "
                    + e.path("message").asText());
            return PROBLEMS;
        }
        System.out.println(oneLine ? TreeJson.write(reply.get("result")) : TreeJson.pretty(reply.get("result")));
        return OK;
    }

    static int fail(Failure f) {
        System.err.println("memoryd: " + f.reason().wireName() + ": " + f.message());
        return PROBLEMS;
    }
}
