package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.client.SocketClient;

import java.io.IOException;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import dev.memoryd.daemon.rpc.JsonRpc;

/** {@code memoryd drift list|show|resolve}: the drift queue, over the socket. */
@Command(name = "drift", description = "The drift queue: files a human's edit left for a maintainer.",
    subcommands = {DriftCmd.ListCmd.class, DriftCmd.Show.class, DriftCmd.Resolve.class})
final class DriftCmd implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a drift command is required (list, show, resolve)");
  }

  @Command(name = "list", description = "Open drift items, oldest first (exit 1 when there are any).")
  static final class ListCmd extends Main.Printing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
      try (SocketClient c = Main.connect(config())) {
        JsonNode reply = c.call("drift.list", null);
        if (out.on() || reply.has("error")) {
          return out.print(reply);
        }
        JsonNode items = reply.get("result").get("items");
        if (items.isEmpty()) {
          System.out.println("no drift");
          return Main.OK;
        }
        for (JsonNode i : items) {
          System.out.println(i.get("id").asText() + "  " + i.get("path").asText() + "  " + i.get("kind").asText()
              + "  since " + i.get("since").asText() + "\n    " + i.get("reason").asText());
        }
        return Main.PROBLEMS;
      }
    }
  }

  @Command(name = "show", description = "What drifted and why, with a diff from the recorded text.")
  static final class Show extends Main.Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "drift item id")
    String id;

    @Override
    public Integer call() throws IOException {
      ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("id", id);
      try (SocketClient c = Main.connect(config())) {
        JsonNode reply = c.call("drift.show", p);
        if (out.on() || reply.has("error")) {
          return out.print(reply);
        }
        JsonNode r = reply.get("result");
        System.out.println("drift " + r.get("id").asText() + " in " + r.get("path").asText() + " (" + r.get("kind").asText()
            + ", since " + r.get("since").asText() + ")");
        System.out.println("why: " + r.get("reason").asText());
        for (JsonNode pr : r.path("problems")) {
          System.out.println("  line " + pr.get("line").asInt() + ": " + pr.get("rule").asText() + ": " + pr.get("message").asText());
        }
        JsonNode commits = r.path("human").path("commits");
        for (JsonNode cm : commits) {
          System.out.println("commit " + cm.get("id").asText().substring(0, 12) + " " + cm.get("author").asText()
              + " " + cm.get("date").asText() + " " + cm.get("subject").asText());
        }
        System.out.println();
        System.out.print(r.get("diff").asText());
        return Main.OK;
      }
    }
  }

  @Command(name = "resolve", description = "Resolve an item; each resolution is an event and a commit.")
  static final class Resolve extends Main.Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "drift item id")
    String id;

    @ArgGroup(exclusive = true, multiplicity = "1")
    How how;

    static final class How {
      @Option(names = "--accept-current", description = "record the file as it is now as the human's edit")
      boolean accept;

      @Option(names = "--restore", description = "write the recorded text back (the drifted text stays in the ledger)")
      boolean restore;

      @Option(names = "--reanchor", paramLabel = "FROM=TO",
          description = "rename section FROM (heading or anchor) back to canonical section TO, then record the file")
      String reanchor;

      @Option(names = "--dismiss", description = "close the item, leaving the file as it is")
      boolean dismiss;
    }

    @Option(names = "--note", description = "why (recorded in the event and the commit)")
    String note;

    @Option(names = "--actor", defaultValue = "maintainer")
    String actor;

    @Override
    public Integer call() throws IOException {
      ObjectNode p = Main.Decision.params(id, actor, note);
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
        p.put("resolution", "reanchor").put("from", how.reanchor.substring(0, eq)).put("to", how.reanchor.substring(eq + 1));
      }
      return out.call(config(), "drift.resolve", p);
    }
  }
}
