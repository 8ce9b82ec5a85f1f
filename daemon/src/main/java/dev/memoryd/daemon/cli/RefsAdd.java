package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd refs add}: the socket method {@code refs.add}. */
@Command(
        name = "add",
        description = {MethodSummaries.REFS_ADD, "The file must be committed; the pin is its repository's HEAD."})
final class RefsAdd extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the file: relative to the repository's top, or absolute inside it")
    String path;

    @Option(
            names = "--repo",
            description = "another local Git repository (absolute path; default: the memory repository)")
    String repo;

    @Option(names = "--placed-on", required = true, description = "memory file or slice id it belongs to (repeatable)")
    List<String> placedOn;

    @Option(names = "--section", description = "a section of the one memory file it is placed on")
    String section;

    @Option(names = "--actor", description = "who adds it (recorded as the event's actor; default: the daemon's)")
    String actor;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("path", path);
        if (repo != null) {
            p.put("repo", repo);
        }
        placedOn.forEach(p.putArray("placed_on")::add);
        if (section != null) {
            p.put("section", section);
        }
        if (actor != null) {
            p.put("actor", actor);
        }
        return out.call(config(), "refs.add", p);
    }
}
