package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.MemorydConfig;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Options every command takes. */
class Common {
    @Option(names = "--root", defaultValue = "./memory", description = "memory root")
    Path root;

    @Option(
            names = "--key-file",
            description = "ledger key file (default $MEMORYD_KEY_FILE or ~/.config/memoryd/ledger.key)")
    Path keyFile;

    @Option(names = "--templates", description = "directory with grammar.yaml and templates (default: built in)")
    Path templates;

    @Option(
            names = "--half-life-days",
            defaultValue = "90",
            description = "half-life of time-based staleness, in days (FRESH/STALE in listings and search)")
    double halfLifeDays;

    MemorydConfig config() {
        return MemorydConfig.defaults(root, keyFile != null ? keyFile : MemorydConfig.defaultKeyFile())
                .withTemplatesDir(templates)
                .withHalfLife(Duration.ofSeconds(Math.round(halfLifeDays * 86_400)));
    }
}
