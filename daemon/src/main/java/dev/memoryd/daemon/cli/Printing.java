package dev.memoryd.daemon.cli;

import picocli.CommandLine;

/** Options of every command that prints a result: {@link Common}'s and {@code --json}. */
abstract class Printing extends Common {
    @CommandLine.Mixin
    JsonOutput out = new JsonOutput();
}
