package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.Memoryd;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The root of picocli's command tree: every command, the options every command inherits, and the
 * error handling. {@link Main} holds none of this, so the commands {@link FastArgs} parses start
 * without loading picocli at all.
 */
@Command(
        name = "memoryd",
        versionProvider = RootCommand.VersionProvider.class,
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
public final class RootCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private RootCommand() {}

    /** The whole command tree, with its error handling; {@link Main#run} executes it. */
    public static CommandLine commandLine() {
        return handlingErrors(new CommandLine(new RootCommand()));
    }

    /** {@code cl} with memoryd's error handling: one line on stderr, and the exit code. */
    static CommandLine handlingErrors(CommandLine cl) {
        cl.setExecutionExceptionHandler((ex, cmd, parse) -> Main.failed(ex, cmd.getErr()::println));
        return cl;
    }

    /** Parses and runs {@code args} with picocli: one everyday command's tree alone, or the whole tree. */
    static int execute(String... args) {
        CommandLine one = SingleCommand.forArgs(args); // an everyday command starts faster alone
        return (one != null ? handlingErrors(one) : commandLine()).execute(args);
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
}
