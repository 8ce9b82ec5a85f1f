package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.doctor.Doctor;
import dev.memoryd.daemon.doctor.Finding;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code memoryd doctor}: prints {@link Doctor}'s findings, one a line, each problem followed by
 * the command that fixes it; exit 0 when nothing is wrong, 1 otherwise.
 */
@Command(
        name = "doctor",
        description =
                "Check a root: key file, ledger, git fsck, the index and its form, line ends, the daemon's writer and"
                        + " watcher, stale locks and socket; each problem with the command that fixes it. Changes nothing"
                        + " (exit 0 healthy, 1 problems found).")
final class DoctorCmd extends Printing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
        List<Finding> findings = new Doctor(config()).run();
        boolean healthy = findings.stream().noneMatch(f -> f.status() == Finding.Status.PROBLEM);
        if (out.on()) {
            ObjectNode r = JsonRpc.MAPPER.createObjectNode().put("ok", healthy);
            ArrayNode a = r.putArray("findings");
            for (Finding f : findings) {
                a.addObject()
                        .put("check", f.check())
                        .put("status", f.status().name().toLowerCase(java.util.Locale.ROOT))
                        .put("message", f.message())
                        .put("fix", f.fix());
            }
            JsonOutput.line(r);
        } else {
            for (Finding f : findings) {
                String tag = switch (f.status()) {
                    case OK -> "ok     ";
                    case PROBLEM -> "PROBLEM";
                    case NOT_CHECKED -> "skipped";
                };
                System.out.println(tag + "  " + f.check() + ": " + f.message());
                if (f.fix() != null) {
                    System.out.println("         fix: " + f.fix());
                }
            }
            long n = findings.stream()
                    .filter(f -> f.status() == Finding.Status.PROBLEM)
                    .count();
            System.out.println(healthy ? "no problem found" : n + " problem(s) found");
        }
        return healthy ? Main.OK : Main.PROBLEMS;
    }
}
