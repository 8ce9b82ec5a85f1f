package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd scope}: the socket method {@code scope}. */
@Command(
        name = "scope",
        description = {MethodSummaries.SCOPE, "A scope is a chunk id or a name path like session/prompt."})
final class ScopeCmd extends Printing implements Callable<Integer> {
    @Parameters(arity = "1..*", description = "scopes: chunk ids or name paths")
    List<String> scopes;

    @Option(names = "--minus", description = "leave out chunks placed on this scope (repeatable)")
    List<String> minus = List.of();

    @Option(names = "--at", description = "read the field as of this commit")
    String at;

    @Option(names = "--limit", description = "at most this many chunks (default: the daemon's, 50)")
    Integer limit;

    @Option(names = "--offset", description = "skip this many of the newest chunks first (default 0)")
    Integer offset;

    @Override
    public Integer call() throws IOException {
        ObjectNode p = JsonNodeFactory.instance.objectNode();
        scopes.forEach(p.putArray("scopes")::add);
        minus.forEach(p.putArray("minus")::add);
        if (at != null) {
            p.put("at", at);
        }
        if (limit != null) {
            p.put("limit", limit);
        }
        if (offset != null) {
            p.put("offset", offset);
        }
        return out.call(config(), "scope", p);
    }
}
