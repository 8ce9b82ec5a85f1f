package dev.memoryd.daemon.cli;

import java.io.IOException;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.JsonRpc;

/**
 * {@code memoryd promotions list|accept|reject} and {@code memoryd grammar set-cap}: maintainers'
 * changes to the grammar in force, over the socket.
 */
final class GrammarCommands {
  private GrammarCommands() {}

  /** The options every grammar change takes. */
  abstract static class Change extends Main.Printing implements Callable<Integer> {
    @Option(names = "--actor", required = true, description = "the maintainer who decides, 'human:Name <email>'")
    String actor;

    @Option(names = "--rationale", description = "why; recorded with the event")
    String rationale;

    ObjectNode params() {
      ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("actor", actor);
      if (rationale != null) {
        p.put("rationale", rationale);
      }
      return p;
    }
  }

  @Command(name = "promotions", description = "Extensions subsections that recur, and their promotion to core sections.",
      subcommands = {Promotions.ListCmd.class, Promotions.Accept.class, Promotions.Reject.class})
  static final class Promotions implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      throw new CommandLine.ParameterException(spec.commandLine(), "a promotions command is required (list, accept, reject)");
    }

    @Command(name = "list", description = "Headings of Extensions subsections recurring in at least N files of one type.")
    static final class ListCmd extends Main.Printing implements Callable<Integer> {
      @Option(names = "--min-files", defaultValue = "3", description = "in how many files of one type a heading must recur")
      int minFiles;

      @Option(names = "--file-type", description = "only this file type (user, part, relationship)")
      String fileType;

      @Override
      public Integer call() throws IOException {
        ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("min_files", minFiles);
        if (fileType != null) {
          p.put("file_type", fileType);
        }
        try (SocketClient c = Main.connect(config())) {
          JsonNode reply = c.call("promotions.list", p);
          if (out.on() || reply.has("error")) {
            return out.print(reply);
          }
          JsonNode r = reply.get("result");
          if (r.path("candidates").isEmpty()) {
            System.out.println("no promotions to propose (grammar version " + r.path("grammar_version").asInt() + ")");
          }
          for (JsonNode x : r.path("candidates")) {
            System.out.println(x.path("file_type").asText() + "  \"" + x.path("heading").asText() + "\"  in "
                + x.path("files").asInt() + " files: " + String.join(", ",
                    JsonRpc.MAPPER.convertValue(x.path("paths"), String[].class)));
          }
          return Main.OK;
        }
      }
    }

    @Command(name = "accept", description = "Promote a heading to a core section and migrate every file of its type (one commit).")
    static final class Accept extends Change {
      @Option(names = "--file-type", required = true, description = "user, part or relationship")
      String fileType;

      @Option(names = "--heading", required = true, description = "the H3 heading to promote")
      String heading;

      @Option(names = "--kind", defaultValue = "narrative", description = "the new section's kind: narrative or list")
      String kind;

      @Override
      public Integer call() throws IOException {
        return out.call(config(), "promotions.accept", params().put("file_type", fileType).put("heading", heading)
            .put("kind", kind));
      }
    }

    @Command(name = "reject", description = "Record that a heading is not to be promoted, so it is not proposed again.")
    static final class Reject extends Change {
      @Option(names = "--file-type", required = true, description = "user, part or relationship")
      String fileType;

      @Option(names = "--heading", required = true, description = "the H3 heading not to promote")
      String heading;

      @Override
      public Integer call() throws IOException {
        return out.call(config(), "promotions.reject", params().put("file_type", fileType).put("heading", heading));
      }
    }
  }

  @Command(name = "grammar", description = "Tune the grammar in force.", subcommands = {Grammar.SetCap.class})
  static final class Grammar implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      throw new CommandLine.ParameterException(spec.commandLine(), "a grammar command is required (set-cap)");
    }

    @Command(name = "set-cap", description = "Set a section's soft cap: max_words (narrative) or max_items (list).")
    static final class SetCap extends Change {
      @Option(names = "--file-type", required = true, description = "user, part, relationship or notes")
      String fileType;

      @Option(names = "--section", required = true, description = "the section's heading or anchor")
      String section;

      @Option(names = "--cap", required = true, description = "max_words or max_items")
      String cap;

      @Option(names = "--value", required = true, description = "the new cap (at least 1)")
      int value;

      @Override
      public Integer call() throws IOException {
        return out.call(config(), "grammar.set_cap", params().put("file_type", fileType).put("section", section)
            .put("cap", cap).put("value", value));
      }
    }
  }
}
