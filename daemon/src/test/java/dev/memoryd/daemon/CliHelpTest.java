package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.memoryd.daemon.cli.Main;
import picocli.CommandLine;

/** Every command and subcommand explains itself: {@code --help} and {@code help <command>}. */
class CliHelpTest {
  @Test
  void everyCommandAndSubcommand_takesHelp_andPrintsItsUsage() {
    List<List<String>> paths = new ArrayList<>();
    collect(Main.commandLine(), new ArrayList<>(), paths);
    assertTrue(paths.size() > 40, "the walk found only " + paths.size() + " commands");
    for (List<String> path : paths) {
      List<String> args = new ArrayList<>(path);
      args.add("--help");
      Cli.Run r = Cli.run(args.toArray(String[]::new));
      String usage = "Usage: " + String.join(" ", List.of("memoryd", String.join(" ", path))).strip();
      assertEquals(0, r.code(), String.join(" ", args) + ": " + r);
      assertTrue(r.out().lines().anyMatch(l -> l.startsWith(usage)), String.join(" ", args) + ": " + r);
    }
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
      assertEquals(Main.commandLine().getSubcommands().get(c).getUsageMessage(), r.out(), c);
    }
    Cli.Run bad = Cli.run("ping", "--nosuch");
    assertEquals(2, bad.code(), bad.toString());
    assertTrue(bad.err().startsWith("Unknown option: '--nosuch'\nUsage: memoryd ping"), bad.toString());
  }

  @Test
  void help_showsDefaultValues() {
    Cli.Run r = Cli.run("serve", "--help");
    assertTrue(r.out().contains("Default: 10000"), r.toString()); // --idle-timeout-ms
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
