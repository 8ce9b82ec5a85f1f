package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.daemon.cli.RootCommand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code memoryd completion}: a bash (and zsh) script that completes every command, subcommand and option. */
class CliCompletionTest {
    @TempDir
    Path tmp;

    @Test
    void script_namesEveryTopLevelCommand() {
        Cli.Run r = Cli.run("completion");
        assertEquals(0, r.code(), r.toString());
        assertEquals("", r.err());
        assertTrue(
                r.out().startsWith("#!/usr/bin/env bash"),
                r.out().lines().findFirst().orElse(""));
        Set<String> commands = RootCommand.commandLine().getSubcommands().keySet();
        assertTrue(commands.size() > 30, commands.toString());
        for (String c : commands) {
            assertTrue(r.out().contains("(" + c + ")"), "the script does not name " + c);
        }
    }

    @Test
    void bash_completesTheCommands_thenASubcommand_thenItsOptions() throws Exception {
        Path script = Files.writeString(
                tmp.resolve("memoryd.bash"), Cli.run("completion").out());
        assertEquals(
                new TreeSet<>(RootCommand.commandLine().getSubcommands().keySet()), complete(script, "memoryd", ""));
        assertEquals(Set.of("drift"), complete(script, "memoryd", "dr"));
        assertEquals(Set.of("resolve"), complete(script, "memoryd", "drift", "re"));
        assertEquals(Set.of("--restore", "--reanchor"), complete(script, "memoryd", "drift", "resolve", "--re"));
    }

    /** What bash, with {@code script} loaded, offers for the last of {@code words} (the word being typed). */
    private Set<String> complete(Path script, String... words) throws Exception {
        String line = String.join(" ", words);
        String bash = "source \"$1\"; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); COMP_LINE=\"" + line + "\";"
                + " COMP_POINT=${#COMP_LINE}; _complete_memoryd memoryd \"${COMP_WORDS[COMP_CWORD]}\"; printf '%s\\n' \"${COMPREPLY[@]}\"";
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", "-c", bash, "bash", script.toString()));
        cmd.addAll(Arrays.asList(words));
        Path out = tmp.resolve("out.txt");
        // compopt complains outside a real completion; what it would change is how the shell shows the words
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "bash did not finish");
        assertEquals(0, p.exitValue(), line);
        Set<String> offered = new TreeSet<>(Files.readAllLines(out, StandardCharsets.UTF_8));
        offered.remove("");
        return offered;
    }
}
