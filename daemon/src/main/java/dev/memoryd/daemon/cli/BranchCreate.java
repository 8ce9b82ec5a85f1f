package dev.memoryd.daemon.cli;

import java.io.IOException;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.memoryd.daemon.rpc.JsonRpc;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code memoryd branch create}: the socket method {@code branch.create}. */
@Command(name = "create", description = "Create a branch from a branch (default: the checked-out one) or any commit.")
final class BranchCreate extends Printing implements Callable<Integer> {
  @Parameters(index = "0") String name;
  @Option(names = "--from") String from;
  @Option(names = "--actor", defaultValue = "user") String actor;

  @Override
  public Integer call() throws IOException {
    ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("name", name).put("actor", actor);
    if (from != null) {
      p.put("from", from);
    }
    return out.call(config(), "branch.create", p);
  }
}
