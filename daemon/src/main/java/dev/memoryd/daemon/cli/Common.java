package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.MemorydConfig;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Options every command takes. */
class Common {
    /** The defaults, named once for picocli's annotations and {@link FastArgs}. */
    static final String DEFAULT_ROOT = "./memory";

    static final String DEFAULT_HALF_LIFE_DAYS = "90";

    @Option(names = "--root", defaultValue = DEFAULT_ROOT, description = "memory root")
    Path root;

    @Option(
            names = "--key-file",
            description = "ledger key file (default $MEMORYD_KEY_FILE or ~/.config/memoryd/ledger.key)")
    Path keyFile;

    @Option(names = "--templates", description = "directory with grammar.yaml and templates (default: built in)")
    Path templates;

    @Option(
            names = "--half-life-days",
            defaultValue = DEFAULT_HALF_LIFE_DAYS,
            description = "half-life of time-based staleness, in days (FRESH/STALE in listings and search)")
    double halfLifeDays;

    MemorydConfig config() {
        return MemorydConfig.defaults(root, keyFile != null ? keyFile : MemorydConfig.defaultKeyFile())
                .withTemplatesDir(templates)
                .withHalfLife(Duration.ofSeconds(Math.round(halfLifeDays * 86_400)));
    }
}
