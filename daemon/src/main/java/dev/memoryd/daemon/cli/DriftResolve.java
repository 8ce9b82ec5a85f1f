package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd drift resolve}: the socket method {@code drift.resolve}, with exactly one resolution. */
@Command(
        name = "resolve",
        description = {MethodSummaries.DRIFT_RESOLVE, "Each resolution is an event and a commit."})
final class DriftResolve extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "drift item id")
    String id;

    @ArgGroup(exclusive = true, multiplicity = "1")
    How how;

    static final class How {
        @Option(names = "--accept-current", description = "record the file as it is now as the human's edit")
        boolean accept;

        @Option(
                names = "--restore",
                description = "write the recorded text back (the drifted text stays in the ledger)")
        boolean restore;

        @Option(
                names = "--reanchor",
                paramLabel = "FROM=TO",
                description =
                        "rename section FROM (heading or anchor) back to canonical section TO, then record the file")
        String reanchor;

        @Option(names = "--dismiss", description = "close the item, leaving the file as it is")
        boolean dismiss;
    }

    @Option(names = "--note", description = "why (recorded in the event and the commit)")
    String note;

    @Option(
            names = "--actor",
            description = "who resolves, a person's 'human:Name <email>' (recorded as the event's actor;"
                    + " default: the root's git identity)")
    String actor;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = Decision.params(id, actor, note);
        if (how.accept) {
            p.put("resolution", "accept_current");
        } else if (how.restore) {
            p.put("resolution", "restore");
        } else if (how.dismiss) {
            p.put("resolution", "dismiss");
        } else {
            int eq = how.reanchor.indexOf('=');
            if (eq <= 0 || eq == how.reanchor.length() - 1) {
                System.err.println("memoryd: --reanchor takes FROM=TO, e.g. --reanchor 'Roles=Role'");
                return Main.USAGE;
            }
            p.put("resolution", "reanchor")
                    .put("from", how.reanchor.substring(0, eq))
                    .put("to", how.reanchor.substring(eq + 1));
        }
        return out.call(config(), "drift.resolve", p);
    }
}
