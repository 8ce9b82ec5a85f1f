package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
        String text = file != null
                ? Files.readString(file, StandardCharsets.UTF_8)
                : new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        com.fasterxml.jackson.databind.JsonNode decl = JsonRpc.MAPPER.readTree(text);
        if (decl instanceof ObjectNode o) {
            provenance.addTo(o);
        }
        return out.call(config(), "declare", decl);
    }
}
