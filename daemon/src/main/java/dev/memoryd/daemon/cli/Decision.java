package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A command that decides on one item by id ({@code <id> [--note] [--actor]}) with one socket
 * call: accepting a proposal, re-pinning a reference.
 */
abstract class Decision extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the item's id")
    String id;

    @Option(names = "--note", description = "why (recorded in the event and the commit)")
    String note;

    @Option(
            names = "--actor",
            description = "who decides (recorded as the event's actor; for a proposal, a person's 'human:Name <email>',"
                    + " by default the root's git identity)")
    String actor;

    abstract String method();

    String defaultActor() {
        return "maintainer";
    }

    static ObjectNode params(String id, String actor, String note) {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("id", id);
        if (actor != null) {
            p.put("actor", actor);
        }
        if (note != null) {
            p.put("note", note);
        }
        return p;
    }

    @Override
    public Integer call() throws IOException {
        return out.call(config(), method(), params(id, actor != null ? actor : defaultActor(), note));
    }
}
