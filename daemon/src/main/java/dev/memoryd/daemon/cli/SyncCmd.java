package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code memoryd sync}: the socket method {@code sync}; exit 1 when a branch did not sync cleanly. */
@Command(
        name = "sync",
        description = {
            MethodSummaries.SYNC,
            "Merges section by section and pushes branches and ledger chains. Exit 1 when a branch has"
                    + " conflicts or a merge that would break a spec rule, or a push was refused."
        })
final class SyncCmd extends Printing implements Callable<Integer> {
    @Option(names = "--remote", defaultValue = "origin", description = "a Git remote of the root")
    String remote;

    @Option(
            names = "--resolutions",
            description = "a JSON file (or - for stdin): [{path, section, take, content?}]"
                    + " for the checked-out branch, or {branch: [...]}")
    String resolutions;

    @Option(
            names = "--take",
            description = "PATH#SECTION=ours|theirs for the checked-out branch, repeatable;"
                    + " SECTION: the heading (e.g. 'Current Focus') or the anchor the conflict names")
    java.util.List<String> takes = new java.util.ArrayList<>();

    @Option(names = "--actor", defaultValue = "user", description = "who syncs (recorded as the merge events' actor)")
    String actor;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("remote", remote).put("actor", actor);
        if (resolutions != null && !takes.isEmpty()) {
            System.err.println("memoryd: give --resolutions or --take, not both");
            return Main.USAGE;
        }
        if (resolutions != null) {
            try {
                p.set("resolutions", InputText.resolutions(resolutions, true));
            } catch (InputText.Refused e) {
                return e.print();
            }
        }
        if (!takes.isEmpty()) {
            if (!BranchMerge.addTakes(takes, p.putArray("resolutions"))) {
                return Main.USAGE;
            }
        }
        try (SocketClient c = Main.connect(config())) {
            JsonNode reply = c.call("sync", p);
            int code = out.print(reply);
            if (code == Main.OK) {
                // A branch that failed (a resolution that matched nothing, say) is also named on stderr.
                for (JsonNode row : reply.get("result").path("branches")) {
                    if (row.has("error")) {
                        System.err.println(
                                "memoryd: branch " + row.path("branch").asText() + ": "
                                        + row.get("error").asText());
                    }
                }
            }
            return code == Main.OK && !reply.get("result").path("ok").asBoolean() ? Main.PROBLEMS : code;
        }
    }
}
