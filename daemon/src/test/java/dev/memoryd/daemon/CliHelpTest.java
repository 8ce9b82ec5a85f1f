package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.daemon.cli.RootCommand;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every command and subcommand explains itself: {@code --help} and {@code help <command...>} print its
 * usage with the default of every option that has one, and every option and parameter says what it is.
 */
class CliHelpTest {
    /** The whole tree, built once: the model the runs' output is checked against. */
    private static final CommandLine TREE = RootCommand.commandLine();

    @Test
    void everyCommandAndSubcommand_takesHelp_andPrintsItsUsage_withEveryDefault() {
        List<List<String>> paths = new ArrayList<>();
        collect(RootCommand.commandLine(), new ArrayList<>(), paths);
        assertTrue(paths.size() > 40, "the walk found only " + paths.size() + " commands");
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            Cli.Run r = Cli.run(args.toArray(String[]::new));
            String usage = "Usage: "
                    + String.join(" ", List.of("memoryd", String.join(" ", path)))
                            .strip();
            assertEquals(0, r.code(), String.join(" ", args) + ": " + r);
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith(usage)), String.join(" ", args) + ": " + r);
            for (OptionSpec o : spec(path).options()) {
                if (o.defaultValue() != null
                        && !String.join(" ", o.description()).contains("${DEFAULT-VALUE}")) {
                    String shown = optionHelp(r.out(), o.longestName());
                    assertTrue(
                            shown.contains("Default: " + o.defaultValue()),
                            String.join(" ", path) + " " + o.longestName() + " does not show its default "
                                    + o.defaultValue() + ":\n" + shown);
                }
            }
        }
    }

    @Test
    void everyOptionAndParameter_saysWhatItIs() {
        List<List<String>> paths = new ArrayList<>();
        collect(RootCommand.commandLine(), new ArrayList<>(), paths);
        List<String> bare = new ArrayList<>();
        for (List<String> path : paths) {
            CommandSpec s = spec(path);
            s.options().stream()
                    .filter(o -> !o.hidden() && String.join("", o.description()).isBlank())
                    .forEach(o -> bare.add(String.join(" ", path) + " " + o.longestName()));
            s.positionalParameters().stream()
                    .filter(p -> !p.hidden() && String.join("", p.description()).isBlank())
                    .forEach(p -> bare.add(String.join(" ", path) + " " + p.paramLabel()));
        }
        assertEquals(List.of(), bare, "options and parameters without a description");
    }

    @Test
    void helpCommand_ofEveryCommandAndSubcommand_printsWhatItsHelpOptionPrints() {
        List<List<String>> paths = new ArrayList<>();
        collect(RootCommand.commandLine(), new ArrayList<>(), paths);
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(List.of("help"));
            args.addAll(path);
            Cli.Run r = Cli.run(args.toArray(String[]::new));
            assertEquals(0, r.code(), String.join(" ", args) + ": " + r);
            assertEquals(spec(path).commandLine().getUsageMessage(), r.out(), String.join(" ", args));
        }
        Cli.Run unknown = Cli.run("help", "drift", "nosuch");
        assertEquals(2, unknown.code(), unknown.toString());
        assertTrue(unknown.err().startsWith("Unknown subcommand 'nosuch'.\nUsage: memoryd drift"), unknown.toString());
    }

    @Test
    void helpCommand_printsTheNamedCommandsUsage() {
        Cli.Run write = Cli.run("help", "write");
        assertEquals(0, write.code(), write.toString());
        assertTrue(write.out().startsWith("Usage: memoryd write"), write.toString());
        Cli.Run drift = Cli.run("help", "drift");
        assertEquals(0, drift.code(), drift.toString());
        assertTrue(drift.out().contains("resolve"), drift.toString());
    }

    @Test
    void everydayCommands_startingAlone_helpExactlyAsInTheWholeTree() {
        for (String c : List.of("ping", "read", "write", "search", "scope", "history", "resolve", "status")) {
            Cli.Run r = Cli.run(c, "--help");
            assertEquals(0, r.code(), c + ": " + r);
            assertEquals(RootCommand.commandLine().getSubcommands().get(c).getUsageMessage(), r.out(), c);
        }
        Cli.Run bad = Cli.run("ping", "--nosuch");
        assertEquals(2, bad.code(), bad.toString());
        assertTrue(bad.err().startsWith("Unknown option: '--nosuch'\nUsage: memoryd ping"), bad.toString());
    }

    @Test
    void everyCommandsHelp_saysEachThingOnce_theCatalogueSummaryFirst() {
        List<List<String>> paths = new ArrayList<>();
        collect(RootCommand.commandLine(), new ArrayList<>(), paths);
        List<String> repeats = new ArrayList<>();
        for (List<String> path : paths) {
            List<String> lines = new ArrayList<>();
            for (String d : spec(path).usageMessage().description()) {
                lines.addAll(d.lines().filter(l -> !l.isBlank()).toList());
            }
            for (int i = 0; i < lines.size(); i++) {
                for (int j = i + 1; j < lines.size(); j++) {
                    if (saySameThing(lines.get(i), lines.get(j))) {
                        repeats.add(String.join(" ", path) + ": '" + lines.get(i) + "' / '" + lines.get(j) + "'");
                    }
                }
            }
        }
        assertEquals(List.of(), repeats, "help lines that repeat each other");
    }

    /** Equal once case, punctuation and spacing are set aside, or one of them the start of the other. */
    private static boolean saySameThing(String a, String b) {
        String x = words(a);
        String y = words(b);
        return x.equals(y) || x.startsWith(y) || y.startsWith(x);
    }

    private static String words(String line) {
        return line.toLowerCase(java.util.Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}]+", " ")
                .strip();
    }

    @Test
    void help_showsDefaultValues() {
        Cli.Run r = Cli.run("serve", "--help");
        assertTrue(r.out().contains("Default: 10000"), r.toString()); // --idle-timeout-ms
    }

    /** The command the words {@code path} name in the whole tree (the root for none). */
    private static CommandSpec spec(List<String> path) {
        CommandLine cl = TREE;
        for (String word : path) {
            cl = cl.getSubcommands().get(word);
        }
        return cl.getCommandSpec();
    }

    /** The lines of {@code usage} that describe the option {@code name}: its own and the indented ones after it. */
    private static String optionHelp(String usage, String name) {
        List<String> lines = usage.lines().toList();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.matches("\\s{1,7}(-\\w, )?" + java.util.regex.Pattern.quote(name) + "\\b.*")) {
                b.append(l).append('\n');
                for (int j = i + 1; j < lines.size() && lines.get(j).startsWith(" ".repeat(8)); j++) {
                    b.append(lines.get(j)).append('\n');
                }
            }
        }
        return b.toString();
    }

    /** Every command under {@code cl} (not {@code cl} itself for the root), as the words that name it. */
    private static void collect(CommandLine cl, List<String> path, List<List<String>> into) {
        for (var e : cl.getSubcommands().entrySet()) {
            List<String> p = new ArrayList<>(path);
            p.add(e.getKey());
            into.add(p);
            collect(e.getValue(), p, into);
        }
        if (path.isEmpty()) {
            into.add(List.of());
        }
    }
}
