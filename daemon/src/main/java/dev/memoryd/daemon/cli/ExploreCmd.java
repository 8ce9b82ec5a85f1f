package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.ReadOnlyRoot;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.rpc.Dispatcher;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memoryd explore}: a slice's typed links (and inferred ones), through the daemon when one
 * serves the root ({@link DaemonRead}; a peer's slice, {@code NAME:id}, is seen only so), read
 * here otherwise.
 */
@Command(
        name = "explore",
        description = {MethodSummaries.EXPLORE, "--infer adds inferred links; works without a daemon."})
final class ExploreCmd extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "a slice id")
    String id;

    @Option(names = "--rel", description = "only this relation (e.g. part_of, has_part, see_also)")
    String rel;

    @Option(names = "--infer", description = "include inverse, transitive and symmetric inferences")
    boolean infer;

    @Override
    public Integer call() throws IOException {
        com.fasterxml.jackson.databind.node.ObjectNode p = dev.memoryd.daemon.rpc.JsonRpc.MAPPER
                .createObjectNode()
                .put("id", id)
                .put("infer", infer);
        if (rel != null) {
            p.put("rel", rel);
        }
        com.fasterxml.jackson.databind.JsonNode reply = DaemonRead.call(config(), "explore", p);
        if (reply != null) {
            if (out.on() || reply.has("error")) {
                return Main.print(reply, true);
            }
            for (com.fasterxml.jackson.databind.JsonNode l : reply.get("result").path("links")) {
                List<String> via = new java.util.ArrayList<>();
                l.path("via").forEach(v -> via.add(v.asText()));
                System.out.println(line(
                        l.path("from").asText(),
                        l.path("rel").asText(),
                        l.path("to").asText(),
                        l.path("inferred").asBoolean(),
                        via));
            }
            return Main.OK;
        }
        try (ReadOnlyRoot m = Memoryd.openReadOnly(config())) {
            var o = m.explore(id, rel, infer);
            if (o instanceof Outcome.Failed<?> f) {
                return Main.fail(f.failure());
            }
            var links = ((Outcome.Ok<List<dev.memoryd.grammar.slices.LinkGraph.ExploredLink>>) o).value();
            if (out.on()) {
                JsonOutput.line(Dispatcher.exploreJson(links));
                return Main.OK;
            }
            for (var l : links) {
                System.out.println(line(l.from(), l.rel(), l.to(), l.inferred(), l.via()));
            }
            return Main.OK;
        }
    }

    private static String line(String from, String rel, String to, boolean inferred, List<String> via) {
        return from + " " + rel + " " + to
                + (inferred
                        ? (via.isEmpty() ? "  (inferred: inverse)" : "  (inferred via " + String.join(" ", via) + ")")
                        : "");
    }
}
