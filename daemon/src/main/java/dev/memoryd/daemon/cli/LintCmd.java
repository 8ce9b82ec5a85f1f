package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.ReadOnlyRoot;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.rpc.JsonRpc;
import dev.memoryd.grammar.LintProblem;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code memoryd lint}: lints one memory file or all of them, here; exit 1 when there are problems. */
@Command(
        name = "lint",
        description = {
            MethodSummaries.LINT,
            "One file, or every file under users/ when none is named; works without a daemon."
        })
final class LintCmd extends Printing implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", description = "path relative to the root")
    String path;

    @Override
    public Integer call() throws IOException {
        try (ReadOnlyRoot m = Memoryd.openReadOnly(config())) {
            Outcome<List<LintProblem>> o = m.lint(path);
            if (o instanceof Outcome.Failed<List<LintProblem>> f) {
                return Main.fail(f.failure());
            }
            List<LintProblem> probs = ((Outcome.Ok<List<LintProblem>>) o).value();
            if (out.on()) {
                ObjectNode r = JsonRpc.MAPPER.createObjectNode(); // as the daemon's lint answers
                var arr = r.putArray("problems");
                probs.forEach(p -> arr.addObject()
                        .put("path", p.path())
                        .put("line", p.line())
                        .put("rule", p.rule())
                        .put("message", p.message()));
                JsonOutput.line(r);
                return probs.isEmpty() ? Main.OK : Main.PROBLEMS;
            }
            PrintWriter w = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
            for (LintProblem p : probs) {
                w.println(p.path() + ":" + p.line() + ": " + p.rule() + ": " + p.message());
            }
            if (probs.isEmpty()) {
                w.println("lint clean");
            }
            return probs.isEmpty() ? Main.OK : Main.PROBLEMS;
        }
    }
}
