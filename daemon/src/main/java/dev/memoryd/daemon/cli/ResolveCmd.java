package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code memoryd resolve <token>}: the socket method {@code resolve}; prints the event an {@code ev:} token names. */
@Command(
        name = "resolve",
        description = {MethodSummaries.RESOLVE, "A token looks like ev:...; needs the daemon."})
final class ResolveCmd extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the evidence token, e.g. ev:2026-11-24T12:00:00Z-01JC...")
    String token;

    @Override
    public Integer call() throws IOException {
        return out.call(
                config(), "resolve", JsonNodeFactory.instance.objectNode().put("token", token));
    }
}
