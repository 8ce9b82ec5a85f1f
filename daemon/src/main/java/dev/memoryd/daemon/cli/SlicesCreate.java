package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.JsonSyntaxError;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memoryd slices create <slice-json>}: the socket method {@code slices.create}. Prints the
 * new slice's id and path; a slice mapping that is not a JSON object is a usage error (exit 2).
 */
@Command(
        name = "create",
        description = {
            MethodSummaries.SLICES_CREATE,
            "The slice: mapping is given as JSON; its id is assigned. Needs the daemon."
        })
final class SlicesCreate extends Printing implements Callable<Integer> {
    @Parameters(
            index = "0",
            description =
                    "the slice: mapping as JSON, e.g. {\"title\":\"Log\",\"summary\":\"Rows.\",\"body\":{\"type\":\"jsonl\"}}")
    String slice;

    @ArgGroup(exclusive = true)
    Body body;

    /** The slice's body text, given inline or in a file. */
    static final class Body {
        @Option(names = "--body", description = "the body text (markdown slices)")
        String text;

        @Option(names = "--body-file", description = "read the body text from this file")
        Path file;
    }

    @Option(names = "--actor", description = "who creates it (recorded as the event's actor; default: the daemon's)")
    String actor;

    @picocli.CommandLine.Mixin
    ProvenanceOptions provenance = new ProvenanceOptions();

    @Override
    public Integer call() throws IOException {
        JsonNode mapping;
        try {
            mapping = JsonRpc.MAPPER.readTree(slice);
        } catch (JsonProcessingException e) {
            System.err.println("memoryd: the slice mapping is not valid JSON"
                    + JsonSyntaxError.of(e).atWhere());
            return Main.USAGE;
        }
        if (mapping == null || !mapping.isObject()) {
            System.err.println(
                    "memoryd: the slice mapping must be a JSON object {\"title\": ..., \"summary\": ..., \"body\": {\"type\": ...}}");
            return Main.USAGE;
        }
        ObjectNode p = JsonRpc.MAPPER.createObjectNode();
        p.set("slice", mapping);
        if (body != null) {
            p.put("body", body.text != null ? body.text : Files.readString(body.file, StandardCharsets.UTF_8));
        }
        if (actor != null) {
            p.put("actor", actor);
        }
        provenance.addTo(p);
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("slices.create", p);
            if (out.on() || reply.has("error")) {
                return out.print(reply);
            }
            JsonNode r = reply.get("result");
            System.out.println(r.path("id").asText() + "  " + r.path("path").asText() + "  commit "
                    + r.path("commit").asText());
            return Main.OK;
        }
    }
}
