package dev.memoryd.daemon.cli;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code memoryd help [COMMAND...]}: the usage help of the command the words name, down the tree
 * ({@code help drift resolve} is {@code drift resolve --help}); with no word, the root's. A word
 * that names no subcommand is a usage error (exit 2). picocli's own help command reads only the
 * first word.
 */
@Command(
        name = "help",
        helpCommand = true,
        header = "Display help information about the specified command.",
        description = {
            "%nWhen no COMMAND is given, the usage help for the main" + " command is displayed.",
            "If a COMMAND is given, the help for that command is shown; more words name a"
                    + " subcommand (help drift resolve).%n"
        })
final class HelpCmd implements CommandLine.IHelpCommandInitializable2, Runnable {
    @Parameters(
            paramLabel = "COMMAND",
            arity = "0..*",
            description = "the command, and subcommand, to show the usage help of")
    List<String> commands; // null when none is given (an initial value would show as a default)

    private CommandLine self;
    private CommandLine.Help.ColorScheme colors;
    private PrintWriter out;

    @Override
    public void init(
            CommandLine helpCommandLine, CommandLine.Help.ColorScheme colorScheme, PrintWriter out, PrintWriter err) {
        this.self = helpCommandLine;
        this.colors = colorScheme;
        this.out = out;
    }

    @Override
    public void run() {
        CommandLine target = self.getParent();
        for (String word : commands == null ? List.<String>of() : commands) {
            CommandLine next = target.getSubcommands().get(word);
            if (next == null) {
                throw new CommandLine.ParameterException(target, "Unknown subcommand '" + word + "'.", null, word);
            }
            target = next;
        }
        target.usage(out, colors);
    }
}
