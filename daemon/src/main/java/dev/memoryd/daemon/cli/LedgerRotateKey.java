package dev.memoryd.daemon.cli;

import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code memoryd ledger rotate-key}: the socket method {@code ledger.rotate_key}. */
@Command(
        name = "rotate-key",
        description = {MethodSummaries.LEDGER_ROTATE_KEY, "The rotation is recorded in the ledger; needs the daemon."})
final class LedgerRotateKey extends Printing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
        return out.call(config(), "ledger.rotate_key", null);
    }
}
