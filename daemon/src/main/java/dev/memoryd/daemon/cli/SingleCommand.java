package dev.memoryd.daemon.cli;

import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The command tree of one everyday command alone, for a fast start: picocli reads the annotations
 * of every command in a tree when it builds it, and the whole tree (some sixty commands) costs
 * more than the rest of a {@code ping}. The root here takes the same inherited attributes as
 * {@link RootCommand}'s, so the command parses, helps and fails exactly as in the whole tree; anything
 * else ({@code --help}, {@code help}, other commands) goes to the whole tree.
 */
@Command(
        name = "memoryd",
        versionProvider = RootCommand.VersionProvider.class,
        scope = CommandLine.ScopeType.INHERIT,
        mixinStandardHelpOptions = true,
        showDefaultValues = true,
        description = "Git-backed, file-first memory daemon for AI agents.")
final class SingleCommand implements Runnable {
    /** The commands a person or an agent runs all day, each by its name. */
    static final Map<String, Class<?>> EVERYDAY = Map.of(
            "ping", PingCmd.class,
            "read", ReadCmd.class,
            "write", WriteCmd.class,
            "search", SearchCmd.class,
            "scope", ScopeCmd.class,
            "history", HistoryCmd.class,
            "resolve", ResolveCmd.class,
            "status", StatusCmd.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private SingleCommand() {}

    /** The tree holding only {@code args[0]}'s command when it is an everyday one; null otherwise. */
    static CommandLine forArgs(String... args) {
        Class<?> c = args.length == 0 ? null : EVERYDAY.get(args[0]);
        if (c == null) {
            return null;
        }
        return new CommandLine(new SingleCommand()).addSubcommand(args[0], c);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }
}
