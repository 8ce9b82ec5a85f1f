package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code memoryd declare}: the socket method {@code declare}, its declaration read from stdin or
 * {@code --file}.
 */
@Command(
        name = "declare",
        description = {
            MethodSummaries.DECLARE,
            "Send one declaration (JSON {chunks, placements, removals, rationale}) from stdin or --file."
        })
final class DeclareCmd extends Printing implements Callable<Integer> {
    @Option(names = "--file", description = "read the declaration from this file instead of stdin")
    Path file;

    @picocli.CommandLine.Mixin
    ProvenanceOptions provenance = new ProvenanceOptions();

    @Override
    public Integer call() throws IOException {
        com.fasterxml.jackson.databind.JsonNode decl;
        try {
            decl = InputText.json(file, "the declaration");
        } catch (InputText.Refused e) {
            return e.print();
        }
        if (decl instanceof ObjectNode o) {
            provenance.addTo(o);
        }
        return out.call(config(), "declare", decl);
    }
}
