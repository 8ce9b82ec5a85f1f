package dev.memoryd.daemon.cli;

import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code memoryd ping}: the socket method {@code ping}. */
@Command(
        name = "ping",
        description = {MethodSummaries.PING, "Ask the running daemon for its version."})
final class PingCmd extends Printing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
        return out.call(config(), "ping", null);
    }
}
