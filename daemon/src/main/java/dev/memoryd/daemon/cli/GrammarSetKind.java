package dev.memoryd.daemon.cli;

import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code memoryd grammar set-kind}. */
@Command(
        name = "set-kind",
        description = {MethodSummaries.GRAMMAR_SET_KIND, "Refused if a file would then lint dirty."})
final class GrammarSetKind extends GrammarChange {
    @Option(names = "--file-type", required = true, description = "user, part, relationship or notes")
    String fileType;

    @Option(names = "--section", required = true, description = "the section's heading or anchor")
    String section;

    @Option(names = "--kind", required = true, description = "narrative or list")
    String kind;

    @Override
    public Integer call() throws IOException {
        return out.call(
                config(),
                "grammar.set_kind",
                params().put("file_type", fileType).put("section", section).put("kind", kind));
    }
}
