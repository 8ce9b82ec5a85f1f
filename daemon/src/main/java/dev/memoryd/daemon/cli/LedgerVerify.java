package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.ReadOnlyRoot;
import dev.memoryd.daemon.rpc.Dispatcher;
import dev.memoryd.ledger.VerifyResult;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code memoryd ledger verify}: verifies every ledger chain here; exit 1 naming the first bad line. */
@Command(
        name = "verify",
        description = {MethodSummaries.LEDGER_VERIFY, "Checks each line's HMAC chain; works without a daemon."})
final class LedgerVerify extends Printing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
        boolean tty = System.console() != null;
        try (ReadOnlyRoot m = Memoryd.openReadOnly(config())) {
            VerifyResult v = m.verify(n -> {
                if (tty) {
                    System.err.print("\rverified " + n + " lines");
                }
            });
            if (tty) {
                System.err.println();
            }
            if (v.ok()) {
                if (out.on()) {
                    JsonOutput.line(Dispatcher.verifyJson(v));
                } else {
                    System.out.println("ledger ok: " + v.lines() + " lines verified");
                }
                return Main.OK;
            }
            System.err.println("memoryd: ledger verify failed at " + v.firstBadFile() + " line " + v.firstBadLine()
                    + ": " + v.reason() + ": " + v.message());
            JsonOutput.line(Dispatcher.verifyJson(v));
            return Main.PROBLEMS;
        }
    }
}
