package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code memoryd write}: the socket method {@code write}, its declaration read from stdin or
 * {@code --file}; input that is not a JSON object is a usage error (exit 2).
 */
@Command(
        name = "write",
        description = {
            MethodSummaries.WRITE,
            "Send one declaration (JSON {ops, rationale, ...}) read from stdin or --file."
        })
final class WriteCmd extends Printing implements Callable<Integer> {
    @Option(names = "--file", description = "read the declaration from this file instead of stdin")
    Path file;

    @CommandLine.Mixin
    ProvenanceOptions provenance = new ProvenanceOptions();

    @Override
    public Integer call() throws IOException {
        JsonNode decl;
        try {
            decl = InputText.json(file, "the declaration");
        } catch (InputText.Refused e) {
            return e.print();
        }
        if (decl == null || !decl.isObject()) {
            System.err.println("memoryd: the declaration must be a JSON object {\"ops\": [...], \"rationale\": ...}");
            return Main.USAGE;
        }
        provenance.addTo((ObjectNode) decl);
        return out.call(config(), "write", decl);
    }
}
