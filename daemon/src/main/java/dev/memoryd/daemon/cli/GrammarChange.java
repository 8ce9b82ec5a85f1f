package dev.memoryd.daemon.cli;

import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine.Option;

import dev.memoryd.daemon.rpc.JsonRpc;

/** The options every grammar change takes: who decides and why. */
abstract class GrammarChange extends Printing implements Callable<Integer> {
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
