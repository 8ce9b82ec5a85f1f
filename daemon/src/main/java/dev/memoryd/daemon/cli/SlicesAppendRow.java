package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.JsonSyntaxError;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code memoryd slices append-row}: the socket method {@code append_row}. */
@Command(
        name = "append-row",
        description = {MethodSummaries.APPEND_ROW, "The row is a JSON object with _meta.id."})
final class SlicesAppendRow extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the slice id")
    String id;

    @Parameters(index = "1", description = "the row as JSON")
    String row;

    @CommandLine.Mixin
    ProvenanceOptions provenance = new ProvenanceOptions();

    @Override
    public Integer call() throws IOException {
        ObjectNode params = JsonRpc.MAPPER.createObjectNode();
        params.put("id", id);
        provenance.addTo(params);
        try {
            params.set("row", JsonRpc.MAPPER.readTree(row));
        } catch (JsonProcessingException e) {
            System.err.println(
                    "memoryd: the row is not valid JSON" + JsonSyntaxError.of(e).atWhere());
            return Main.USAGE;
        }
        return out.call(config(), "append_row", params);
    }
}
