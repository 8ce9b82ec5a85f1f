package dev.memoryd.daemon.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.memoryd.daemon.rpc.JsonRpc;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd declare | scope | traverse}: thin clients of the socket methods of the same names. */
final class SubstrateCommands {
  private SubstrateCommands() {}

  @Command(name = "declare", description = "Send one declaration (JSON {chunks, placements, removals, rationale}) from stdin or --file.")
  static final class Declare extends Main.Printing implements Callable<Integer> {
    @Option(names = "--file", description = "read the declaration from this file instead of stdin")
    Path file;

    @picocli.CommandLine.Mixin
    ProvenanceOptions provenance = new ProvenanceOptions();

    @Override
    public Integer call() throws IOException {
      String text = file != null ? Files.readString(file, StandardCharsets.UTF_8)
          : new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
      com.fasterxml.jackson.databind.JsonNode decl = JsonRpc.MAPPER.readTree(text);
      if (decl instanceof ObjectNode o) {
        provenance.addTo(o);
      }
      return out.call(config(), "declare", decl);
    }
  }

  @Command(name = "scope", description = "Chunks placed on every given scope (ids or names like session/prompt).")
  static final class Scope extends Main.Printing implements Callable<Integer> {
    @Parameters(arity = "1..*", description = "scopes: chunk ids or name paths")
    List<String> scopes;

    @Option(names = "--minus", description = "leave out chunks placed on this scope (repeatable)")
    List<String> minus = List.of();

    @Option(names = "--at", description = "read the field as of this commit")
    String at;

    @Option(names = "--limit")
    Integer limit;

    @Option(names = "--offset")
    Integer offset;

    @Override
    public Integer call() throws IOException {
      ObjectNode p = JsonRpc.MAPPER.createObjectNode();
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

  @Command(name = "traverse", description = "Follow connections from a chunk: what is placed on it, and where else those are placed.")
  static final class Traverse extends Main.Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the chunk: an id or a name path")
    String from;

    @Option(names = "--depth", defaultValue = "1")
    int depth;

    @Option(names = "--at", description = "read the field as of this commit")
    String at;

    @Override
    public Integer call() throws IOException {
      ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("from", from).put("depth", depth);
      if (at != null) {
        p.put("at", at);
      }
      return out.call(config(), "traverse", p);
    }
  }

  /**
   * {@code memoryd stale <scope>}: the socket method {@code stale}. Prints one stale derived chunk
   * a line ({@code id  name  stale: N commit(s) since <source_commit>: <ids>}, or its reason); exit
   * 0 when none is stale, 1 when some are (as lint does for problems) or the daemon refuses.
   */
  @Command(name = "stale", description = "Stale derived chunks (summaries, embeddings) under a derivation scope"
      + " (exit 1 when some are stale).")
  static final class Stale extends Main.Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the derivation scope: a chunk id or a name path, e.g. summaries/opus-4.6")
    String scope;

    @Option(names = "--at", description = "judge as of this commit")
    String at;

    @Option(names = "--limit", description = "list at most this many (default 100)")
    Integer limit;

    @Override
    public Integer call() throws IOException {
      ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("scope", scope);
      if (at != null) {
        p.put("at", at);
      }
      if (limit != null) {
        p.put("limit", limit);
      }
      try (dev.memoryd.daemon.client.SocketClient c = Main.connect(config())) {
        com.fasterxml.jackson.databind.JsonNode reply = c.call("stale", p);
        if (reply == null || reply.has("error")) {
          return out.print(reply);
        }
        com.fasterxml.jackson.databind.JsonNode r = reply.get("result");
        if (out.on()) {
          out.print(reply);
        } else {
          for (com.fasterxml.jackson.databind.JsonNode x : r.get("stale")) {
            List<String> ids = new java.util.ArrayList<>();
            x.path("changed_since").forEach(id -> ids.add(id.asText().substring(0, 12)));
            System.out.println(x.path("id").asText() + "  " + x.path("name").asText("-") + "  stale: "
                + (x.has("stale_reason") ? x.get("stale_reason").asText()
                    : x.path("changed_total").asInt(ids.size()) + " commit(s) since "
                        + x.path("body").path("source_commit").asText() + ": " + String.join(" ", ids)));
          }
          System.err.println("memoryd: " + r.path("total").asInt() + " of " + r.path("derived").asInt()
              + " derived chunk(s) under " + scope + " stale");
        }
        return r.path("total").asInt() > 0 ? Main.PROBLEMS : Main.OK;
      }
    }
  }
}
