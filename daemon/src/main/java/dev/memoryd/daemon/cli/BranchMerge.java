package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd branch merge}: the socket method {@code branch.merge}; exit 1 on conflicts. */
@Command(
        name = "merge",
        description = {MethodSummaries.BRANCH_MERGE, "Conflicts are printed (exit 1) and then nothing is merged."})
final class BranchMerge extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the branch to merge from")
    String from;

    @Option(names = "--into", description = "default: the checked-out branch")
    String into;

    @Option(names = "--take", description = "PATH#SECTION=ours|theirs, repeatable; SECTION: the heading or the anchor")
    List<String> takes = new ArrayList<>();

    @Option(
            names = "--resolutions",
            description = "a JSON file (or - for stdin) holding [{path, section, take, content?}]")
    String resolutions;

    @Option(names = "--actor", defaultValue = "user", description = "who merges (recorded as the event's actor)")
    String actor;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("from", from).put("actor", actor);
        if (into != null) {
            p.put("into", into);
        }
        ArrayNode rs;
        try {
            rs = resolutions == null
                    ? JsonRpc.MAPPER.createArrayNode()
                    : (ArrayNode) InputText.resolutions(resolutions, false);
        } catch (InputText.Refused e) {
            return e.print();
        }
        if (!addTakes(takes, rs)) {
            return Main.USAGE;
        }
        if (!rs.isEmpty()) {
            p.set("resolutions", rs);
        }
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("branch.merge", p);
            int code = out.print(reply);
            return code == Main.OK && reply.get("result").has("conflicts") ? Main.PROBLEMS : code;
        }
    }

    /** Adds each {@code PATH#SECTION=ours|theirs} to {@code rs}; false (after saying why) on a malformed one. */
    static boolean addTakes(List<String> takes, ArrayNode rs) {
        for (String t : takes) {
            int hash = t.lastIndexOf('#');
            int eq = t.lastIndexOf('=');
            if (hash < 0 || eq < hash) {
                System.err.println("memoryd: --take wants PATH#SECTION=ours|theirs, not '" + t + "'");
                return false;
            }
            rs.addObject()
                    .put("path", t.substring(0, hash))
                    .put("section", t.substring(hash + 1, eq))
                    .put("take", t.substring(eq + 1));
        }
        return true;
    }
}
