package dev.memoryd.daemon.cli;

import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code memoryd grammar set-cap}. */
@Command(
        name = "set-cap",
        description = {MethodSummaries.GRAMMAR_SET_CAP, "max_words for a narrative section, max_items for a list."})
final class GrammarSetCap extends GrammarChange {
    @Option(names = "--file-type", required = true, description = "user, part, relationship or notes")
    String fileType;

    @Option(names = "--section", required = true, description = "the section's heading or anchor")
    String section;

    @Option(names = "--cap", required = true, description = "max_words or max_items")
    String cap;

    @Option(names = "--value", required = true, description = "the new cap (at least 1)")
    int value;

    @Override
    public Integer call() throws IOException {
        return out.call(
                config(),
                "grammar.set_cap",
                params().put("file_type", fileType)
                        .put("section", section)
                        .put("cap", cap)
                        .put("value", value));
    }
}
