package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;

/** The options every grammar change takes: who decides and why. */
abstract class GrammarChange extends Printing implements Callable<Integer> {
    @Option(names = "--actor", required = true, description = "the maintainer who decides, 'human:Name <email>'")
    String actor;

    @Option(names = "--rationale", description = "why; recorded with the event")
    String rationale;

    ObjectNode params() {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("actor", actor);
        if (rationale != null) {
            p.put("rationale", rationale);
        }
        return p;
    }
}
