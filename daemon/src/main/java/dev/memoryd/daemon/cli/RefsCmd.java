package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.client.SocketClient;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import dev.memoryd.daemon.rpc.JsonRpc;

/** {@code memoryd refs add|list|reconcile|repin|retire}: file references, over the socket. */
@Command(name = "refs", description = "File references pinned to Git commits and reconciled against history.",
    subcommands = {RefsCmd.Add.class, RefsCmd.ListCmd.class, RefsCmd.Reconcile.class, RefsCmd.Repin.class,
        RefsCmd.Retire.class})
final class RefsCmd implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "a refs command is required (add, list, reconcile, repin, retire)");
  }

  @Command(name = "add", description = "Reference a committed file, pinned to its repository's HEAD.")
  static final class Add extends Main.Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the file: relative to the repository's top, or absolute inside it")
    String path;

    @Option(names = "--repo", description = "another local Git repository (absolute path; default: the memory repository)")
    String repo;

    @Option(names = "--placed-on", required = true, description = "memory file or slice id it belongs to (repeatable)")
    List<String> placedOn;

    @Option(names = "--section", description = "a section of the one memory file it is placed on")
    String section;

    @Option(names = "--actor")
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

  @Command(name = "list", description = "File references and their pins.")
  static final class ListCmd extends Main.Printing implements Callable<Integer> {
    @Option(names = "--all", description = "retired references too")
    boolean all;

    @Override
    public Integer call() throws IOException {
      return out.call(config(), "refs.list", JsonRpc.MAPPER.createObjectNode().put("all", all));
    }
  }

  @Command(name = "reconcile", description = "Walk history since each pin; changed, renamed and deleted references"
      + " go to the drift queue (exit 1 when there are any).")
  static final class Reconcile extends Main.Printing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
      try (SocketClient c = Main.connect(config())) {
        JsonNode reply = c.call("refs.reconcile", JsonRpc.MAPPER.createObjectNode());
        if (reply == null || reply.has("error")) {
          return Main.print(reply);
        }
        JsonNode r = reply.get("result");
        if (out.on()) {
          out.print(reply);
        } else {
          System.out.println(r.get("checked").asInt() + " reference(s) checked, " + r.get("findings").size()
              + " moved on, in " + r.get("millis").asLong() + " ms");
          for (JsonNode f : r.get("findings")) {
            System.out.println(f.get("drift_id").asText() + "  " + f.get("kind").asText() + "  " + f.get("path").asText()
                + (f.hasNonNull("new_path") ? " -> " + f.get("new_path").asText() : "") + "  (reference "
                + f.get("id").asText() + ", " + f.get("commits_total").asInt() + " commit(s))");
          }
          for (JsonNode pr : r.get("problems")) {
            System.out.println("cannot check " + pr.get("id").asText() + " (" + pr.get("path").asText() + "): "
                + pr.get("problem").asText());
          }
        }
        return r.get("findings").isEmpty() && r.get("problems").isEmpty() ? Main.OK : Main.PROBLEMS;
      }
    }
  }

  @Command(name = "repin", description = "Pin a reference to where its file stands now (after a rename: its new"
      + " name); closes its drift item. <id>: the reference id, or its drift item id.")
  static final class Repin extends Main.Decision {
    @Override
    String method() {
      return "refs.repin";
    }
  }

  @Command(name = "retire", description = "Stop following a reference (the pointer stays, marked retired); closes"
      + " its drift item. <id>: the reference id, or its drift item id.")
  static final class Retire extends Main.Decision {
    @Override
    String method() {
      return "refs.retire";
    }
  }
}
