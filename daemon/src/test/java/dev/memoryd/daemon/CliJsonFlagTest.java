package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.memoryd.daemon.cli.RootCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every command that prints a result takes {@code --json}, the one that prints it as one line of
 * JSON; the commands that do not are listed here, each with why. What {@code --json} prints is
 * {@link CliJsonTest}'s.
 */
class CliJsonFlagTest {
    /** The commands without the {@code --json} of a printed result, and why each has none. */
    static final Map<String, String> WITHOUT = Map.of(
            "help", "prints usage text, not a result",
            "init", "prints what it set up, for a person, not a result",
            "clone", "prints what it set up, for a person, not a result",
            "serve", "runs the daemon: one line when it is up, then nothing until it stops",
            "slip send",
                    "its --json says the message is written in the JSON form (older than the printing flag);"
                            + " the result is printed as indented JSON",
            "mcp", "its stdout carries the MCP protocol",
            "console", "runs the web console: prints login URLs for a person",
            "completion", "prints a shell script");

    @Test
    void everyCommandThatPrintsAResult_takesJson_andEveryExceptionIsStillACommandWithoutIt() {
        Map<String, CommandSpec> leaves = new TreeMap<>();
        collectLeaves(RootCommand.commandLine(), "", leaves);
        List<String> missing = new ArrayList<>();
        leaves.forEach((path, spec) -> {
            if (!WITHOUT.containsKey(path) && !printsJson(spec)) {
                missing.add(path);
            }
        });
        assertEquals(List.of(), missing, "commands that print a result without taking --json");
        WITHOUT.keySet().forEach(path -> {
            assertNotNull(leaves.get(path), "'" + path + "' is listed as an exception but is no command");
            assertFalse(printsJson(leaves.get(path)), "'" + path + "' takes --json now: take it off the list");
        });
    }

    /** Whether {@code spec} has the {@code --json} option of a printed result (the JsonOutput mixin's). */
    private static boolean printsJson(CommandSpec spec) {
        return spec.findOption("--json") != null
                && spec.mixins().values().stream()
                        .anyMatch(m -> m.userObject().getClass().getSimpleName().equals("JsonOutput")
                                && m.findOption("--json") != null);
    }

    /** The commands with no subcommands under {@code cl}, by the words that name them. */
    private static void collectLeaves(CommandLine cl, String path, Map<String, CommandSpec> into) {
        if (cl.getSubcommands().isEmpty()) {
            into.put(path, cl.getCommandSpec());
        }
        cl.getSubcommands().forEach((name, sub) -> collectLeaves(sub, path.isEmpty() ? name : path + " " + name, into));
    }
}
