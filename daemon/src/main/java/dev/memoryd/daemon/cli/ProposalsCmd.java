package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.client.SocketClient;

import java.io.IOException;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import dev.memoryd.daemon.rpc.JsonRpc;

/** {@code memoryd proposals list|show|accept|reject}: agents' changes waiting for review, over the socket. */
@Command(name = "proposals", description = "Agents' changes to sections marked for review.",
    subcommands = {ProposalsCmd.ListCmd.class, ProposalsCmd.Show.class, ProposalsCmd.Accept.class, ProposalsCmd.Reject.class})
final class ProposalsCmd implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a proposals command is required (list, show, accept, reject)");
  }

  @Command(name = "list", description = "Open proposals (--all: also accepted and rejected ones).")
  static final class ListCmd extends Main.Printing implements Callable<Integer> {
    @Option(names = "--all") boolean all;

    @Override
    public Integer call() throws IOException {
      try (SocketClient c = Main.connect(config())) {
        JsonNode reply = c.call("proposals.list", JsonRpc.MAPPER.createObjectNode().put("all", all));
        if (out.on() || reply.has("error")) {
          return out.print(reply);
        }
        JsonNode items = reply.get("result").get("items");
        if (items.isEmpty()) {
          System.out.println("no proposals");
        }
        for (JsonNode i : items) {
          StringBuilder what = new StringBuilder();
          i.path("changes").forEach(ch -> what.append(what.length() == 0 ? "" : "; ").append(ch.path("summary").asText()));
          System.out.println(i.get("id").asText() + "  " + i.get("status").asText() + "  " + i.get("branch").asText()
              + "  by " + i.get("actor").asText() + "  " + i.get("created").asText() + "\n    " + what);
        }
        return Main.OK;
      }
    }
  }

  @Command(name = "show", description = "One proposal: its changes and ops.")
  static final class Show extends Main.Printing implements Callable<Integer> {
    @Parameters(index = "0") String id;

    @Override
    public Integer call() throws IOException {
      return out.call(config(), "proposals.show", JsonRpc.MAPPER.createObjectNode().put("id", id));
    }
  }

  @Command(name = "accept", description = "Apply a proposal onto the branch as it is now (a merge commit).")
  static final class Accept extends Main.Decision {
    @Override
    String method() {
      return "proposals.accept";
    }

    @Override
    String defaultActor() {
      return "user";
    }
  }

  @Command(name = "reject", description = "Reject a proposal (recorded; its branch stays in history).")
  static final class Reject extends Main.Decision {
    @Override
    String method() {
      return "proposals.reject";
    }

    @Override
    String defaultActor() {
      return "user";
    }
  }
}
