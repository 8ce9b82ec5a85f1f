package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.client.SocketClient;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.memoryd.daemon.app.Daemon;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.rpc.Dispatcher;
import dev.memoryd.daemon.rpc.JsonRpc;
import dev.memoryd.grammar.LintProblem;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.KeyRing;
import dev.memoryd.ledger.VerifyResult;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code memoryd} command line: parses flags, calls one service API, maps the outcome to an
 * exit code (0 ok, 1 the check found problems or the daemon refused, 2 usage error) and prints
 * errors to stderr in one line.
 */
@Command(name = "memoryd", versionProvider = Main.VersionProvider.class,
    // Inherited by every subcommand, nested ones too: each takes --help (and --version) and shows its defaults.
    scope = CommandLine.ScopeType.INHERIT, mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Git-backed, file-first memory daemon for AI agents.",
    subcommands = {CommandLine.HelpCommand.class, Main.Init.class, Main.Serve.class, Main.Ping.class, Main.Write.class,
        Main.Read.class, Main.Lint.class, Main.LedgerCmd.class, Main.SlipCmd.class, Main.Context.class, Main.Explore.class, Main.SlicesCmd.class, Main.Search.class, SubstrateCommands.Declare.class,
        SubstrateCommands.Scope.class, SubstrateCommands.Traverse.class, SubstrateCommands.Stale.class, DriftCmd.class, ReplayCmd.class, ProposalsCmd.class, BranchCmd.class,
        RefsCmd.class, SyncCmd.Sync.class, SyncCmd.Clone.class, Bench.class,
        HistoryCmd.class, ResolveCmd.class, RoutineCmd.class, GrammarCommands.Promotions.class, GrammarCommands.Grammar.class, CaptureCmd.class, ConversationCmd.class, StatusCmd.class, DoctorCmd.class,
        dev.memoryd.daemon.mcp.McpCommand.class, dev.memoryd.daemon.console.ConsoleCommand.class})
public final class Main implements Runnable {
  static final int OK = 0;
  static final int PROBLEMS = 1;
  static final int USAGE = 2;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  public static int run(String... args) {
    CommandLine one = SingleCommand.forArgs(args); // an everyday command starts faster alone
    return (one != null ? handlingErrors(one) : commandLine()).execute(args);
  }

  /** The whole command tree, with its error handling; {@link #run} executes it. */
  public static CommandLine commandLine() {
    return handlingErrors(new CommandLine(new Main()));
  }

  /** {@code cl} with memoryd's error handling: one line on stderr, and the exit code. */
  static CommandLine handlingErrors(CommandLine cl) {
    cl.setExecutionExceptionHandler((ex, cmd, parse) -> {
      cmd.getErr().println("memoryd: " + oneLine(ex));
      // Naming the wrong key (or none) is a usage error: nothing was looked at, nothing changed.
      return ex instanceof KeyRing.MissingKeyFile ? USAGE : PROBLEMS;
    });
    return cl;
  }

  static String oneLine(Throwable t) {
    String m = t.getMessage() == null ? t.toString() : t.getMessage();
    return m.replace('\n', ' ');
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
  }

  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"memoryd " + Memoryd.VERSION + " (protocol " + Memoryd.PROTOCOL_VERSION + ")"};
    }
  }

  /**
   * A command that decides on one item by id ({@code <id> [--note] [--actor]}) with one socket
   * call: accepting a proposal, re-pinning a reference.
   */
  abstract static class Decision extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the item's id")
    String id;

    @Option(names = "--note", description = "why (recorded in the event and the commit)")
    String note;

    @Option(names = "--actor", description = "who decides (recorded as the event's actor)")
    String actor;

    abstract String method();

    String defaultActor() {
      return "maintainer";
    }

    static ObjectNode params(String id, String actor, String note) {
      ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("id", id).put("actor", actor);
      if (note != null) {
        p.put("note", note);
      }
      return p;
    }

    @Override
    public Integer call() throws IOException {
      return out.call(config(), method(), params(id, actor != null ? actor : defaultActor(), note));
    }
  }

  /** Options every command takes. */
  static class Common {
    @Option(names = "--root", defaultValue = "./memory", description = "memory root")
    Path root;

    @Option(names = "--key-file", description = "ledger key file (default $MEMORYD_KEY_FILE or ~/.config/memoryd/ledger.key)")
    Path keyFile;

    @Option(names = "--templates", description = "directory with grammar.yaml and templates (default: built in)")
    Path templates;

    @Option(names = "--half-life-days", defaultValue = "90",
        description = "half-life of time-based staleness, in days (FRESH/STALE in listings and search)")
    double halfLifeDays;

    MemorydConfig config() {
      return MemorydConfig.defaults(root, keyFile != null ? keyFile : MemorydConfig.defaultKeyFile())
          .withTemplatesDir(templates)
          .withHalfLife(Duration.ofSeconds(Math.round(halfLifeDays * 86_400)));
    }
  }

  /** Options of every command that prints a result: {@link Common}'s and {@code --json}. */
  abstract static class Printing extends Common {
    @CommandLine.Mixin
    JsonOutput out = new JsonOutput();
  }

  @Command(name = "init", description = "Create a memory root (a Git repository made with JGit).")
  static final class Init extends Common implements Callable<Integer> {
    @Option(names = "--example", description = "copy an example users/ tree in (e.g. ./users)")
    Path example;

    @Override
    public Integer call() throws IOException {
      for (String line : Memoryd.init(config(), example)) {
        System.out.println(line);
      }
      System.out.println("memory root ready at " + config().root());
      return OK;
    }
  }

  @Command(name = "serve", description = "Run the daemon on <root>/.memoryd/memoryd.sock until SIGTERM.")
  static final class Serve extends Common implements Callable<Integer> {
    @Option(names = "--init", description = "create the root first if it does not exist")
    boolean init;

    @Option(names = "--branch", defaultValue = MemorydConfig.DEFAULT_BRANCH,
        description = "the branch to serve: the one checked out in the working tree (writes are refused while"
            + " another is; other branches stay reachable through each method's branch parameter)")
    String branch;

    @Option(names = "--idle-timeout-ms", defaultValue = "10000",
        description = "close a connection stalled mid-line after this long")
    long idleMs;

    @Option(names = "--max-line-bytes", defaultValue = "1048576", description = "request size limit")
    int maxLine;

    @Option(names = "--max-connections", defaultValue = "1024",
        description = "refuse client connections beyond this many open at once (lowered if the open-file"
            + " limit is too low to leave the writer its descriptors)")
    int maxConnections;

    @Option(names = "--quiet-ms", defaultValue = "2000",
        description = "capture a human's edits once the working tree has been still this long")
    long quietMs;

    @Option(names = "--rescan-s", defaultValue = "60",
        description = "rescan every memory file this often, in case the file watch missed an event (0: never)")
    long rescanS;

    @Option(names = "--no-watch", description = "do not watch the working tree (edits are still captured"
        + " before any agent write to their file)")
    boolean noWatch;

    @Override
    public Integer call() throws Exception {
      if (maxConnections < 1) {
        System.err.println("memoryd: --max-connections must be at least 1, not " + maxConnections);
        return PROBLEMS;
      }
      try {
        new BranchName(branch);
      } catch (IllegalArgumentException e) {
        System.err.println("memoryd: --branch: " + e.getMessage());
        return USAGE;
      }
      MemorydConfig cfg = config().withBranch(branch).withIdleTimeout(Duration.ofMillis(idleMs)).withMaxLineBytes(maxLine)
          .withMaxConnections(maxConnections).withWatch(Duration.ofMillis(quietMs), Duration.ofSeconds(rescanS));
      if (init || !Files.isDirectory(cfg.root().resolve(".git"))) {
        if (!init && Files.exists(cfg.root()) && !isEmptyDir(cfg.root())) {
          System.err.println("memoryd: " + cfg.root() + " is not a memory root; run 'bin/memoryd init --root "
              + cfg.root() + "'");
          return PROBLEMS;
        }
        Memoryd.init(cfg, null).forEach(System.out::println);
      } else if (Memoryd.createKeyIfMissing(cfg)) {
        System.out.println("created key file " + cfg.keyFile() + " (mode 0600; keep it outside the repository)");
      }
      if (!hasBranch(cfg)) {
        System.err.println("memoryd: " + cfg.root() + " has no branch '" + branch + "' to serve (--branch names the"
            + " branch checked out in its working tree)");
        return PROBLEMS;
      }
      try {
        dev.memoryd.daemon.RootSettings.load(cfg.root()); // a bad settings file: one clear line, not a trace
      } catch (IllegalArgumentException e) {
        System.err.println("memoryd: " + cfg.root() + ": " + e.getMessage());
        return PROBLEMS;
      }
      Daemon d;
      try {
        d = Daemon.start(cfg, !noWatch);
      } catch (Daemon.AlreadyServing e) {
        System.err.println("memoryd: " + e.getMessage());
        return PROBLEMS;
      }
      Runtime.getRuntime().addShutdownHook(new Thread(d::close, "memoryd-shutdown"));
      System.out.println("memoryd " + Memoryd.VERSION + " serving " + cfg.root() + " on " + cfg.socket());
      System.out.flush();
      d.awaitStop();
      return OK;
    }

    /** Whether the root's repository has {@code cfg}'s branch (a daemon serving none would refuse every write). */
    private static boolean hasBranch(MemorydConfig cfg) throws IOException {
      try (var repo = new org.eclipse.jgit.storage.file.FileRepositoryBuilder()
          .setGitDir(cfg.root().resolve(".git").toFile()).setMustExist(true).build()) {
        return repo.exactRef(org.eclipse.jgit.lib.Constants.R_HEADS + cfg.branch()) != null;
      }
    }

    private static boolean isEmptyDir(Path p) throws IOException {
      try (var s = Files.list(p)) {
        return s.findAny().isEmpty();
      }
    }
  }

  /** Connects to the daemon or explains exactly how to start one. */
  static SocketClient connect(MemorydConfig cfg) throws IOException {
    try {
      return SocketClient.connect(cfg.socket(), SocketClient.commandTimeout());
    } catch (ConnectException | NoSuchFileException e) {
      throw new IOException("no memoryd is serving " + cfg.root() + " (no socket at " + cfg.socket()
          + "); start one with: bin/memoryd serve --root " + cfg.root(), e);
    } catch (IOException e) {
      if (!Files.exists(cfg.socket())) {
        throw new IOException("no memoryd is serving " + cfg.root() + "; start one with: bin/memoryd serve --root "
            + cfg.root(), e);
      }
      throw e;
    }
  }

  /** Prints a reply's result indented (exit 0) or its error in one line (exit 1). */
  static int print(JsonNode reply) throws JsonProcessingException {
    return print(reply, false);
  }

  /** Prints a reply's result, indented or as one line (exit 0), or its error in one line (exit 1). */
  static int print(JsonNode reply, boolean oneLine) throws JsonProcessingException {
    if (reply == null) {
      System.err.println("memoryd: the daemon closed the connection without a reply");
      return PROBLEMS;
    }
    if (reply.has("error")) {
      JsonNode e = reply.get("error");
      System.err.println("memoryd: " + e.path("data").path("reason").asText("error") + ": "
          + e.path("message").asText());
      return PROBLEMS;
    }
    System.out.println(oneLine ? JsonRpc.MAPPER.writeValueAsString(reply.get("result"))
        : JsonRpc.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(reply.get("result")));
    return OK;
  }

  @Command(name = "ping", description = "Ask the running daemon for its version.")
  static final class Ping extends Printing implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
      return out.call(config(), "ping", null);
    }
  }

  @Command(name = "write", description = "Send one declaration (JSON {ops, rationale, ...}) read from stdin or --file.")
  static final class Write extends Printing implements Callable<Integer> {
    @Option(names = "--file", description = "read the declaration from this file instead of stdin")
    Path file;

    @CommandLine.Mixin
    ProvenanceOptions provenance = new ProvenanceOptions();

    @Override
    public Integer call() throws IOException {
      String text = file != null ? Files.readString(file, StandardCharsets.UTF_8)
          : new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
      JsonNode decl;
      try {
        decl = JsonRpc.MAPPER.readTree(text);
      } catch (JsonProcessingException e) {
        System.err.println("memoryd: the declaration is not valid JSON: " + e.getOriginalMessage());
        return USAGE;
      }
      if (decl == null || !decl.isObject()) {
        System.err.println("memoryd: the declaration must be a JSON object {\"ops\": [...], \"rationale\": ...}");
        return USAGE;
      }
      provenance.addTo((ObjectNode) decl);
      return out.call(config(), "write", decl);
    }
  }

  @Command(name = "read", description = "Print a memory file or one section (works without a daemon).")
  static final class Read extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "path relative to the root, e.g. users/sam/overview.md")
    String path;

    @Option(names = "--section", description = "canonical heading or anchor slug")
    String section;

    @Option(names = "--at", description = "a commit (id, branch, HEAD~n) to read from")
    String at;

    @Override
    public Integer call() throws IOException {
      Integer served = DaemonRead.read(config(), path, section, at, out.on());
      if (served != null) {
        return served;
      }
      try (Memoryd m = Memoryd.openReadOnly(config())) {
        Outcome<ObjectNode> o = m.read(path, section, at, out.on()); // printing text needs no key
        if (o instanceof Outcome.Failed<ObjectNode> f) {
          return fail(f.failure());
        }
        ObjectNode r = ((Outcome.Ok<ObjectNode>) o).value();
        if (out.on()) {
          JsonOutput.line(r);
        } else {
          System.out.print(r.get("content").asText());
        }
        return OK;
      }
    }
  }

  static int fail(Failure f) {
    System.err.println("memoryd: " + f.reason().wireName() + ": " + f.message());
    return PROBLEMS;
  }

  @Command(name = "lint", description = "Lint one memory file or all of users/ (works without a daemon).")
  static final class Lint extends Printing implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", description = "path relative to the root")
    String path;

    @Override
    public Integer call() throws IOException {
      try (Memoryd m = Memoryd.openReadOnly(config())) {
        Outcome<List<LintProblem>> o = m.lint(path);
        if (o instanceof Outcome.Failed<List<LintProblem>> f) {
          return fail(f.failure());
        }
        List<LintProblem> probs = ((Outcome.Ok<List<LintProblem>>) o).value();
        if (out.on()) {
          ObjectNode r = JsonRpc.MAPPER.createObjectNode(); // as the daemon's lint answers
          var arr = r.putArray("problems");
          probs.forEach(p -> arr.addObject().put("path", p.path()).put("line", p.line()).put("rule", p.rule())
              .put("message", p.message()));
          JsonOutput.line(r);
          return probs.isEmpty() ? OK : PROBLEMS;
        }
        PrintWriter w = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        for (LintProblem p : probs) {
          w.println(p.path() + ":" + p.line() + ": " + p.rule() + ": " + p.message());
        }
        if (probs.isEmpty()) {
          w.println("lint clean");
        }
        return probs.isEmpty() ? OK : PROBLEMS;
      }
    }
  }

  @Command(name = "ledger", description = "Ledger commands.", subcommands = {LedgerCmd.Verify.class, LedgerCmd.RotateKey.class})
  static final class LedgerCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      throw new CommandLine.ParameterException(spec.commandLine(), "a ledger command is required (verify)");
    }

    @Command(name = "rotate-key", description = "Add a new key version, make it current, and record the rotation in the ledger (needs the daemon).")
    static final class RotateKey extends Printing implements Callable<Integer> {
      @Override
      public Integer call() throws IOException {
        return out.call(config(), "ledger.rotate_key", null);
      }
    }

    @Command(name = "verify", description = "Re-verify every ledger line's HMAC chain (works without a daemon).")
    static final class Verify extends Printing implements Callable<Integer> {
      @Override
      public Integer call() throws IOException {
        boolean tty = System.console() != null;
        try (Memoryd m = Memoryd.openReadOnly(config())) {
          VerifyResult v = m.verify(n -> {
            if (tty) {
              System.err.print("\rverified " + n + " lines");
            }
          });
          if (tty) {
            System.err.println();
          }
          if (v.ok()) {
            if (out.on()) {
              JsonOutput.line(Dispatcher.verifyJson(v));
            } else {
              System.out.println("ledger ok: " + v.lines() + " lines verified");
            }
            return OK;
          }
          System.err.println("memoryd: ledger verify failed at " + v.firstBadFile() + " line "
              + v.firstBadLine() + ": " + v.reason() + ": " + v.message());
          JsonOutput.line(Dispatcher.verifyJson(v));
          return PROBLEMS;
        }
      }
    }
  }

  @Command(name = "slip", description = "Relay SLIP agent messages through the daemon.",
      subcommands = {SlipCmd.Send.class, SlipCmd.Recv.class})
  static final class SlipCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      throw new CommandLine.ParameterException(spec.commandLine(), "a slip command is required (send, recv)");
    }

    @Command(name = "send", description = "Send one message: nSLIP text, or its JSON form with --json.")
    static final class Send extends Common implements Callable<Integer> {
      @Parameters(index = "0", description = "the message (nSLIP, or JSON with --json)")
      String message;

      @Option(names = "--json", description = "the message is the JSON form")
      boolean json;

      @Override
      public Integer call() throws IOException {
        ObjectNode params = JsonRpc.MAPPER.createObjectNode();
        if (json) {
          try {
            params.set("message", JsonRpc.MAPPER.readTree(message));
          } catch (JsonProcessingException e) {
            System.err.println("memoryd: --json message is not valid JSON: " + e.getOriginalMessage());
            return USAGE;
          }
        } else {
          params.put("message", message);
        }
        // Not a Printing command: its --json says how the message is written, not how to print.
        try (SocketClient c = connect(config())) {
          return print(c.call("slip.send", params));
        }
      }
    }

    @Command(name = "recv", description = "Receive the messages queued for an agent (each is delivered once).")
    static final class Recv extends Printing implements Callable<Integer> {
      @Option(names = "--agent", required = true, description = "the destination agent id")
      long agent;

      @Option(names = "--wait-ms", defaultValue = "0", description = "wait this long for a first message")
      int waitMs;

      @Option(names = "--max", defaultValue = "100", description = "at most this many messages")
      int max;

      @Override
      public Integer call() throws IOException {
        ObjectNode params = JsonRpc.MAPPER.createObjectNode();
        params.put("agent", agent);
        params.put("wait_ms", waitMs);
        params.put("max", max);
        return out.call(config(), "slip.recv", params);
      }
    }
  }

  @Command(name = "context", description = "SlicePolicy v1 context for an anchor turn (SliceExport, printed as RFC 8785 JSON).")
  static final class Context extends Common implements Callable<Integer> {
    @Option(names = "--anchor", required = true, description = "the anchor turn id")
    String anchor;

    @Option(names = "--policy", description = "policy configuration as JSON (default: the spec's defaults)")
    String policy;

    @Override
    public Integer call() throws IOException {
      ObjectNode params = JsonRpc.MAPPER.createObjectNode();
      params.put("anchor_turn_id", anchor);
      if (policy != null) {
        try {
          params.set("policy", JsonRpc.MAPPER.readTree(policy));
        } catch (JsonProcessingException e) {
          System.err.println("memoryd: --policy is not valid JSON: " + e.getOriginalMessage());
          return USAGE;
        }
      }
      try (SocketClient c = connect(config())) {
        JsonNode reply = c.call("context", params);
        if (reply.has("error")) {
          return print(reply);
        }
        System.out.println(dev.memoryd.grammar.json.Jcs.canonicalize(reply.get("result")));
        return OK;
      }
    }
  }

  @Command(name = "explore", description = "Typed links from a slice id, with --infer for inferred ones (works without a daemon).")
  static final class Explore extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "a slice id")
    String id;

    @Option(names = "--rel", description = "only this relation (e.g. part_of, has_part, see_also)")
    String rel;

    @Option(names = "--infer", description = "include inverse, transitive and symmetric inferences")
    boolean infer;

    @Override
    public Integer call() throws IOException {
      try (Memoryd m = Memoryd.openReadOnly(config())) {
        var o = m.explore(id, rel, infer);
        if (o instanceof Outcome.Failed<?> f) {
          return fail(f.failure());
        }
        var links = ((Outcome.Ok<List<dev.memoryd.grammar.slices.LinkGraph.ExploredLink>>) o).value();
        if (out.on()) {
          JsonOutput.line(Dispatcher.exploreJson(links));
          return OK;
        }
        for (var l : links) {
          System.out.println(l.from() + " " + l.rel() + " " + l.to() + (l.inferred() ? (l.via().isEmpty() ? "  (inferred: inverse)" : "  (inferred via " + String.join(" ", l.via()) + ")") : ""));
        }
        return OK;
      }
    }
  }

  @Command(name = "slices", description = "Generic slices.", subcommands = {SlicesCmd.ListCmd.class, SlicesCmd.AppendRow.class, SlicesCreate.class})
  static final class SlicesCmd implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      throw new CommandLine.ParameterException(spec.commandLine(), "a slices command is required (list, append-row, create)");
    }

    @Command(name = "list", description = "Every slice with FRESH/STALE and its age (works without a daemon).")
    static final class ListCmd extends Printing implements Callable<Integer> {
      @Override
      public Integer call() throws IOException {
        try (Memoryd m = Memoryd.openReadOnly(config())) {
          List<ObjectNode> items = m.slices().list(java.time.Instant.now(), m.config().halfLife());
          if (out.on()) {
            ObjectNode r = JsonRpc.MAPPER.createObjectNode(); // as the daemon's slices.list answers
            items.forEach(r.putArray("items")::add);
            JsonOutput.line(r);
            return OK;
          }
          for (ObjectNode o : items) {
            System.out.println(o.path("id").asText() + "  " + o.path("path").asText() + "  "
                + o.path("tag").asText("[no date]") + "  " + o.path("title").asText(""));
          }
          return OK;
        }
      }
    }

    @Command(name = "append-row", description = "Append one JSONL row (a JSON object with _meta.id) to a jsonl slice.")
    static final class AppendRow extends Printing implements Callable<Integer> {
      @Parameters(index = "0", description = "the slice id")
      String id;

      @Parameters(index = "1", description = "the row as JSON")
      String row;

      @CommandLine.Mixin
      ProvenanceOptions provenance = new ProvenanceOptions();

      @Override
      public Integer call() throws IOException {
        ObjectNode params = JsonRpc.MAPPER.createObjectNode();
        params.put("id", id);
        provenance.addTo(params);
        try {
          params.set("row", JsonRpc.MAPPER.readTree(row));
        } catch (JsonProcessingException e) {
          System.err.println("memoryd: the row is not valid JSON: " + e.getOriginalMessage());
          return USAGE;
        }
        return out.call(config(), "append_row", params);
      }
    }
  }

  @Command(name = "search", description = "Full-text search over memory sections and slices, with FRESH/STALE ages"
      + " (exit 1 when nothing matches).")
  static final class Search extends Printing implements Callable<Integer> {
    @Parameters(index = "0", description = "the query (Lucene syntax: words, \"phrases\", OR, -not, field:word)")
    String q;

    @Option(names = "--limit", defaultValue = "10", description = "at most this many hits")
    int limit;

    @Option(names = "--source", description = "only JSONL rows recorded with this provenance source"
        + " (user-statement, inference, observation)")
    String source;

    @Override
    public Integer call() throws IOException {
      ObjectNode params = JsonRpc.MAPPER.createObjectNode();
      params.put("q", q);
      params.put("limit", limit);
      if (source != null) {
        params.put("source", source);
      }
      try (SocketClient c = connect(config())) {
        JsonNode reply = c.call("search", params);
        if (reply == null || reply.has("error")) {
          return print(reply);
        }
        JsonNode hits = reply.get("result").get("hits");
        if (out.on()) {
          out.print(reply);
        } else {
          for (JsonNode h : hits) {
            System.out.println(h.path("path").asText() + (h.path("section").isTextual() ? " § " + h.path("section").asText() : "")
                + "  " + h.path("tag").asText("") + "  (" + h.path("score").asDouble() + ")");
          }
        }
        if (hits.isEmpty()) {
          // As grep: a search that finds nothing is not a success, so scripts can tell.
          System.err.println("memoryd: no match for '" + q + "'");
          return PROBLEMS;
        }
        return OK;
      }
    }
  }
}
