package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.client.SocketClient;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eclipse.jgit.lib.PersonIdent;

import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.rpc.JsonRpc;
import dev.memoryd.ledger.VerifyResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Drives a real daemon (a child process) over its socket and prints one JSON line. Each client
 * appends items to its own part's Triggers section, one declaration per request, waiting for each
 * acknowledgement (closed loop). Also measures the physical floor in the same run: a bare 600-byte
 * append + fsync and a bare low-level JGit commit; and ledger verify throughput.
 */
@Command(name = "bench", description = "Benchmark the write path against a real daemon; prints one JSON line.")
final class Bench implements Callable<Integer> {
  @Option(names = "--clients", defaultValue = "1", description = "clients sending at once (write and slip modes)") int clients;
  @Option(names = "--writes", defaultValue = "2000", description = "measured declarations in total") int writes;
  @Option(names = "--history", defaultValue = "0", description = "events to pre-fill before measuring") int history;
  @Option(names = "--warmup", defaultValue = "6000", description = "declarations sent before measuring, by as many"
      + " clients as measured, so the figures are a running daemon's rather than a fresh JVM's (300: a fresh"
      + " daemon's first seconds; the output's jit_ms_measured says how much compiling was left)") int warmup;
  @Option(names = "--root", description = "root to use (default: a fresh temp dir)") Path root;
  @Option(names = "--floor", description = "also measure the physical floor") boolean floor;
  @Option(names = "--verify", description = "also measure ledger verify throughput") boolean verify;
  @Option(names = "--mode", defaultValue = "write", description = {"what to measure:",
      "write: declarations per second and their latency, --clients at once (with --floor, --verify)",
      "slip: SLIP relay throughput and send latency, --clients agents",
      "context: SlicePolicy context queries over a stored DAG of --turns turns",
      "human: a human's save of a section until its event is committed",
      "replay: replay --verify over a ledger of --events events",
      "scope: scope and search queries over --chunks declared chunks",
      "refs: refs reconcile of --refs file references, before and after changes",
      "merge: branch merge after --writes declarations on each of two branches",
      "sync: sync between two roots after --writes declarations on each",
      "mcp: a write (and a read) as an MCP tool call through memoryd mcp against the same call over the"
          + " socket, --writes of each, interleaved in blocks, after --warmup of each",
      "peer: append_item to a growing list against the MCP reference memory server's add_observations (npm),"
          + " --writes of each, interleaved in blocks, after --warmup of each"}) String mode;
  @Option(names = "--turns", defaultValue = "100000", description = "context mode: turns in the stored DAG") int turns;
  @Option(names = "--per-append", defaultValue = "0", description = "context mode: turns per conversation.append"
      + " (0: a 200th of --turns)") int perAppendOpt;
  @Option(names = "--sessions", defaultValue = "0", description = "context mode: sessions the turns go to, in turn"
      + " (0: a new session per append)") int sessions;
  @Option(names = "--quiet-ms", defaultValue = "2000", description = "the daemon's quiet period (human mode)") long quietMs;
  @Option(names = "--edits", defaultValue = "30", description = "human mode: measured saves") int edits;
  @Option(names = "--events", defaultValue = "100000", description = "replay mode: ledger events to build") int events;
  @Option(names = "--parts", defaultValue = "100", description = "replay mode: parts whose notes the events spread over") int replayParts;
  @Option(names = "--chunks", defaultValue = "100000", description = "scope mode: chunks declared") int chunks;
  @Option(names = "--refs", defaultValue = "1000", description = "refs mode: file references reconciled") int refs;
  @Option(names = "--per-declare", defaultValue = "2000", description = "scope mode: chunks per declaration") int perDeclare;
  @Option(names = "--bare-jvm", description = "start the daemon on the JVM's defaults instead of the launcher's"
      + " serve settings (" + ServeJvmOptions.FILE + "), to compare them") boolean bareJvm;
  @Option(names = "--idle-s", defaultValue = "0", description = "write mode: also measure the daemon's resident"
      + " memory after this many idle seconds, before the run and after it") int idleS;

  private List<String> daemonJvm;
  private long daemonPid;

  @Override
  public Integer call() throws Exception {
    Path dir = root != null ? root : Files.createTempDirectory("memoryd-bench");
    Path key = dir.resolveSibling(dir.getFileName() + ".key");
    MemorydConfig cfg = MemorydConfig.defaults(dir, key);
    Memoryd.init(cfg, null);
    daemonJvm = daemonJvm();
    Process daemon = startDaemon(cfg, quietMs);
    daemonPid = daemon.pid();
    ObjectNode out = JsonRpc.MAPPER.createObjectNode();
    if (!mode.equals("write")) {
      try {
        if (mode.equals("slip")) {
          benchSlip(cfg, out);
        } else if (mode.equals("context")) {
          benchContext(cfg, out);
        } else if (mode.equals("human")) {
          benchHuman(cfg, out);
        } else if (mode.equals("replay")) {
          benchReplay(cfg, out);
        } else if (mode.equals("scope")) {
          benchScope(cfg, out);
        } else if (mode.equals("refs")) {
          RefsBench.run(cfg, refs, out);
        } else if (mode.equals("merge")) {
          BranchBench.run(cfg, writes, out);
        } else if (mode.equals("sync")) {
          SyncBench.run(cfg, writes, c -> startDaemon(c, quietMs), out);
        } else if (mode.equals("mcp")) {
          McpBench.run(cfg, writes, warmup, out);
        } else if (mode.equals("peer")) {
          PeerBench.run(cfg, writes, warmup, out);
        } else {
          throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
              "--mode must be write, slip, context, human, replay, scope, refs, merge, sync, mcp or peer");
        }
      } finally {
        daemon.destroy();
        daemon.waitFor(30, TimeUnit.SECONDS);
        if (root == null) {
          deleteTree(dir.getParent(), dir.getFileName().toString());
        }
      }
      System.out.println(JsonRpc.MAPPER.writeValueAsString(out));
      return 0;
    }
    ObjectNode rss = out.putObject("daemon_rss_mb");
    out.put("daemon_jvm", String.join(" ", daemonJvm));
    try {
      rss.put("started", rssMb(daemon, "VmRSS"));
      if (idleS > 0) {
        Thread.sleep(idleS * 1000L);
        rss.put("idle_before", rssMb(daemon, "VmRSS"));
      }
      int parts = Math.max(clients, 1);
      try (SocketClient c = SocketClient.connect(cfg.socket())) {
        check(c.call("write", decl("bench-setup", createOps(parts))));
      }
      if (history > 0) {
        prefill(cfg, parts);
      }
      run(cfg, parts, warmup, null);
      rss.put("after_warmup", rssMb(daemon, "VmRSS"));
      settle();
      long[] lat = new long[writes];
      long jit0 = jitMs(cfg);
      long t0 = System.nanoTime();
      run(cfg, parts, writes, lat);
      double secs = (System.nanoTime() - t0) / 1e9;
      long jitDuring = jitMs(cfg) - jit0;
      Arrays.sort(lat);
      out.put("writes", writes);
      out.put("clients", clients);
      out.put("p50_ms", round(lat[lat.length / 2] / 1e6));
      out.put("p99_ms", round(lat[(int) Math.min(lat.length - 1, Math.ceil(lat.length * 0.99) - 1)] / 1e6));
      out.put("writes_per_s", round(writes / secs));
      out.put("history_events", history);
      out.put("warmup", warmup);
      // JIT compilation in the daemon while measuring: near 0 for a warmed daemon
      out.put("jit_ms_measured", jitDuring);
      try (SocketClient c = SocketClient.connect(cfg.socket())) {
        out.set("write_stats", c.call("ping", null).path("result").path("write_stats"));
      }
      rss.put("after", rssMb(daemon, "VmRSS"));
      rss.put("peak", rssMb(daemon, "VmHWM"));
      rss.put("after_anon", rssMb(daemon, "RssAnon")); // the rest is mapped files (jar, index)
      if (idleS > 0) {
        Thread.sleep(idleS * 1000L);
        rss.put("idle_after", rssMb(daemon, "VmRSS"));
      }
    } finally {
      daemon.destroy();
      daemon.waitFor(30, TimeUnit.SECONDS);
    }
    if (verify) {
      try (Memoryd m = Memoryd.openReadOnly(cfg)) {
        long bytes = dirSize(cfg.ledgerDir());
        double first = 0;
        double best = Double.MAX_VALUE;
        VerifyResult v = null;
        for (int i = 0; i < 3; i++) { // the first pass includes JIT warm-up and a cold page cache
          long t = System.nanoTime();
          v = m.verify();
          double s = (System.nanoTime() - t) / 1e9;
          first = i == 0 ? s : first;
          best = Math.min(best, s);
        }
        out.put("verify_ok", v.ok());
        out.put("verify_lines", v.lines());
        out.put("verify_bytes", bytes);
        out.put("verify_lines_per_s", round(v.lines() / best));
        out.put("verify_mb_per_s", round(bytes / 1e6 / best));
        out.put("verify_first_pass_lines_per_s", round(v.lines() / first));
      }
    }
    if (floor) {
      settle();
      out.set("floor", floor(dir));
    }
    if (root == null) {
      deleteTree(dir.getParent(), dir.getFileName().toString());
    }
    System.out.println(JsonRpc.MAPPER.writeValueAsString(out));
    return 0;
  }

  /**
   * Flushes other dirty pages (earlier runs, the prefill) before measuring: on a shared disk,
   * background write-back otherwise lands inside our fsyncs and runs stop being comparable.
   */
  private static void settle() throws IOException, InterruptedException {
    new ProcessBuilder("sync").inheritIO().start().waitFor(60, TimeUnit.SECONDS);
  }

  /** Removes what a run made in a temp dir: the root, its key, log and floor files. */
  /** Best effort: a file vanishing mid-walk (the daemon's last writes) must not cost the run its result. */
  static void deleteTree(Path parent, String prefix) {
    try (var s = Files.list(parent)) {
      for (Path p : (Iterable<Path>) s.filter(f -> f.getFileName().toString().startsWith(prefix))::iterator) {
        try (var w = Files.walk(p)) {
          w.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | java.io.UncheckedIOException e) {
          System.err.println("bench: could not remove all of " + p + ": " + e);
        }
      }
    } catch (IOException e) {
      System.err.println("bench: could not list " + parent + ": " + e);
    }
  }

  /** Senders send {@code writes} messages to {@code clients} agents; one receiver per agent long-polls. */
  private void benchSlip(MemorydConfig cfg, ObjectNode out) throws Exception {
    int agents = Math.max(1, clients);
    long[] lat = new long[writes];
    java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();
    ExecutorService ex = Executors.newFixedThreadPool(clients + agents);
    List<Future<?>> fs = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int a = 0; a < agents; a++) {
      final int agent = a;
      fs.add(ex.submit(() -> {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
          int mine = writes / agents + (agent < writes % agents ? 1 : 0);
          int got = 0;
          while (got < mine) {
            ObjectNode p = JsonRpc.MAPPER.createObjectNode().put("agent", 1000 + agent).put("wait_ms", 2000).put("max", 1000);
            JsonNode r = c.call("slip.recv", p);
            check(r);
            got += r.get("result").get("messages").size();
          }
          received.addAndGet(got);
        }
        return null;
      }));
    }
    for (int t = 0; t < clients; t++) {
      final int sender = t;
      fs.add(ex.submit(() -> {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
          for (int i = sender; i < writes; i += clients) {
            ObjectNode p = JsonRpc.MAPPER.createObjectNode();
            p.put("message", "@a1|f2|c1|S1|d"
                + dev.memoryd.grammar.slip.Base62.encode(1000 + i % agents) + "|T"
                + dev.memoryd.grammar.slip.Base62.encode(i) + "|u\"bench\"#");
            long s = System.nanoTime();
            check(c.call("slip.send", p));
            lat[i] = System.nanoTime() - s;
          }
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get();
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    ex.shutdown();
    Arrays.sort(lat);
    out.put("mode", "slip");
    out.put("messages", writes);
    out.put("senders", clients);
    out.put("receivers", agents);
    out.put("delivered", received.get());
    out.put("messages_per_s", round(writes / secs));
    out.put("send_p50_ms", round(lat[lat.length / 2] / 1e6));
    out.put("send_p99_ms", round(lat[(int) Math.min(lat.length - 1, Math.ceil(lat.length * 0.99) - 1)] / 1e6));
  }

  /** Stores a random {@code turns}-turn DAG (200 sessions), then times {@code writes} context queries. */
  private void benchContext(MemorydConfig cfg, ObjectNode out) throws Exception {
    java.util.Random rnd = new java.util.Random(42);
    int perAppend = perAppendOpt > 0 ? perAppendOpt : Math.max(1, turns / 200);
    long tLoad = System.nanoTime();
    double cpu0 = cpuSeconds(daemonPid);
    try (SocketClient c = SocketClient.connect(cfg.socket())) {
      String[] phases = {"exploration", "debugging", "planning", "consolidation", "synthesis"};
      for (int start = 0; start < turns; start += perAppend) {
        ObjectNode req = JsonRpc.MAPPER.createObjectNode();
        String session = "bench-" + (sessions > 0 ? start / perAppend % sessions : start / perAppend);
        req.put("session_id", session);
        ArrayNode ts = req.putArray("turns");
        for (int i = start; i < Math.min(turns, start + perAppend); i++) {
          ObjectNode t = ts.addObject();
          t.put("id", uuid(i));
          t.put("role", i % 2 == 0 ? "user" : "assistant");
          t.put("phase", phases[rnd.nextInt(phases.length)]);
          t.put("salience", rnd.nextInt(1000) / 1000.0);
          t.put("trajectory_depth", i % 50);
          t.put("trajectory_sibling_order", rnd.nextInt(4));
          t.put("trajectory_homogeneity", rnd.nextInt(1000) / 1000.0);
          t.put("trajectory_temporal", rnd.nextInt(1000) / 1000.0);
          t.put("trajectory_complexity", rnd.nextInt(5000) / 1000.0);
          t.put("created_at", Instant.ofEpochSecond(1_767_225_600L + i).toString());
          ArrayNode ps = t.putArray("parents");
          if (i > 0) {
            ps.addObject().put("id", uuid(Math.max(0, i - 1 - rnd.nextInt(Math.min(i, 50))))).put("edge_type", "reply");
            if (i > 10 && rnd.nextInt(10) == 0) {
              int second = Math.max(0, i - 1 - rnd.nextInt(Math.min(i, 500)));
              if (!uuid(second).equals(ps.get(0).get("id").asText())) {
                ps.addObject().put("id", uuid(second)).put("edge_type", "reference");
              }
            }
          }
        }
        check(c.call("conversation.append", req));
      }
      double loadSecs = (System.nanoTime() - tLoad) / 1e9;
      out.put("load_daemon_cpu_s", round(cpuSeconds(daemonPid) - cpu0));
      out.put("turns_per_append", perAppend);
      ObjectNode warm = JsonRpc.MAPPER.createObjectNode().put("anchor_turn_id", uuid(turns / 2));
      long tFirst = System.nanoTime();
      check(c.call("context", warm)); // builds the in-memory DAG once
      double firstMs = (System.nanoTime() - tFirst) / 1e6;
      for (int i = 0; i < warmup; i++) {
        check(c.call("context", JsonRpc.MAPPER.createObjectNode().put("anchor_turn_id", uuid(rnd.nextInt(turns)))));
      }
      long[] lat = new long[writes];
      int selected = 0;
      for (int i = 0; i < writes; i++) {
        ObjectNode q = JsonRpc.MAPPER.createObjectNode().put("anchor_turn_id", uuid(rnd.nextInt(turns)));
        long s = System.nanoTime();
        JsonNode r = c.call("context", q);
        lat[i] = System.nanoTime() - s;
        check(r);
        selected += r.get("result").get("turns").size();
      }
      Arrays.sort(lat);
      out.put("mode", "context");
      out.put("turns", turns);
      out.put("queries", writes);
      out.put("p50_ms", round(lat[lat.length / 2] / 1e6));
      out.put("p99_ms", round(lat[(int) Math.min(lat.length - 1, Math.ceil(lat.length * 0.99) - 1)] / 1e6));
      out.put("mean_selected_turns", round((double) selected / writes));
      out.put("load_s", round(loadSecs));
      out.put("first_query_ms", round(firstMs));
    }
  }

  /**
   * Declares {@code --chunks} chunks (each an instance of one of 100 topics and one of 10 kinds,
   * with a body of words) through the daemon, {@code --per-declare} per declaration, then measures
   * over the socket: {@code scope} of a topic ∩ kind (about 100 chunks; the default page of 50),
   * {@code scope} of one topic (about 1,000 chunks), and {@code search} for a word (about 20 hits).
   */
  private void benchScope(MemorydConfig cfg, ObjectNode out) throws Exception {
    java.util.Random rnd = new java.util.Random(42);
    int topics = 100;
    int kinds = 10;
    int words = Math.max(1, chunks / 20);
    try (SocketClient c = SocketClient.connect(cfg.socket())) {
      ObjectNode setup = JsonRpc.MAPPER.createObjectNode().put("rationale", "bench scopes");
      ArrayNode sc = setup.putArray("chunks");
      for (int t = 0; t < topics; t++) {
        sc.addObject().put("ref", "t" + t).put("name", "topic-" + t).putObject("body").put("text", "topic " + t);
      }
      for (int k = 0; k < kinds; k++) {
        sc.addObject().put("ref", "k" + k).put("name", "kind-" + k).putObject("body").put("text", "kind " + k);
      }
      JsonNode created = c.call("declare", setup);
      check(created);
      String[] ids = new String[topics + kinds];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = created.get("result").get("created").get(i).get("id").asText();
      }
      long tLoad = System.nanoTime();
      long[] declLat = new long[(chunks + perDeclare - 1) / perDeclare];
      for (int start = 0, d = 0; start < chunks; start += perDeclare, d++) {
        ObjectNode req = JsonRpc.MAPPER.createObjectNode().put("rationale", "bench chunks from " + start);
        ArrayNode cs = req.putArray("chunks");
        for (int i = start; i < Math.min(chunks, start + perDeclare); i++) {
          ObjectNode ch = cs.addObject().put("name", "c" + i);
          ch.putObject("body").put("text", "chunk " + i + " about " + word(i % words) + " and "
              + word(rnd.nextInt(words))).put("n", i);
          ArrayNode ps = ch.putArray("placements");
          ps.addObject().put("scope", ids[i % topics]);
          ps.addObject().put("scope", ids[topics + (i / topics) % kinds]);
        }
        long s = System.nanoTime();
        check(c.call("declare", req));
        declLat[d] = System.nanoTime() - s;
      }
      double loadSecs = (System.nanoTime() - tLoad) / 1e9;
      long[] inter = new long[writes];
      long[] single = new long[writes];
      long[] search = new long[writes];
      long returned = 0;
      long hits = 0;
      for (int i = -warmup; i < writes; i++) {
        int t = rnd.nextInt(topics);
        ObjectNode q = JsonRpc.MAPPER.createObjectNode();
        q.putArray("scopes").add(ids[t]).add(ids[topics + rnd.nextInt(kinds)]);
        long s = System.nanoTime();
        JsonNode r = c.call("scope", q);
        long l1 = System.nanoTime() - s;
        check(r);
        ObjectNode q2 = JsonRpc.MAPPER.createObjectNode();
        q2.putArray("scopes").add("topic-" + t);
        s = System.nanoTime();
        JsonNode r2 = c.call("scope", q2);
        long l2 = System.nanoTime() - s;
        check(r2);
        ObjectNode q3 = JsonRpc.MAPPER.createObjectNode().put("q", word(rnd.nextInt(words)));
        s = System.nanoTime();
        JsonNode r3 = c.call("search", q3);
        long l3 = System.nanoTime() - s;
        check(r3);
        if (i >= 0) {
          inter[i] = l1;
          single[i] = l2;
          search[i] = l3;
          returned += r.get("result").get("counts").get("total").asLong();
          hits += r3.get("result").get("hits").size();
        }
      }
      Arrays.sort(inter);
      Arrays.sort(single);
      Arrays.sort(search);
      Arrays.sort(declLat);
      out.put("mode", "scope");
      out.put("chunks", chunks);
      out.put("per_declare", perDeclare);
      out.put("queries", writes);
      out.put("load_s", round(loadSecs));
      out.put("chunks_per_s", round(chunks / loadSecs));
      out.put("declare_p50_ms", round(declLat[declLat.length / 2] / 1e6));
      out.put("scope_intersection_p50_ms", round(inter[inter.length / 2] / 1e6));
      out.put("scope_intersection_p99_ms", round(pct99(inter) / 1e6));
      out.put("scope_intersection_mean_total", round((double) returned / writes));
      out.put("scope_single_p50_ms", round(single[single.length / 2] / 1e6));
      out.put("scope_single_p99_ms", round(pct99(single) / 1e6));
      out.put("search_p50_ms", round(search[search.length / 2] / 1e6));
      out.put("search_p99_ms", round(pct99(search) / 1e6));
      out.put("search_mean_hits", round((double) hits / writes));
    }
  }

  private static long pct99(long[] sorted) {
    return sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
  }

  /** A made-up word (letters only, so the analyzer keeps it whole). */
  private static String word(int i) {
    StringBuilder sb = new StringBuilder("z");
    int n = i;
    do {
      sb.append((char) ('a' + n % 26));
      n /= 26;
    } while (n > 0);
    return sb.append("q").toString();
  }

  private static String uuid(int i) {
    return String.format("%08x-0000-4000-8000-%012x", i >>> 16, (long) i);
  }

  private static double round(double d) {
    return Math.round(d * 1000) / 1000.0;
  }

  /**
   * The daemon's JVM options: the launcher's serve settings (none with {@code --bare-jvm}), then
   * {@code MEMORYD_DAEMON_JAVA_OPTS} (a JFR recording, another collector...).
   */
  private List<String> daemonJvm() throws IOException {
    String extra = System.getenv("MEMORYD_DAEMON_JAVA_OPTS");
    return ServeJvmOptions.withExtra(bareJvm ? List.of() : ServeJvmOptions.read(ServeJvmOptions.locate()),
        extra == null || extra.isBlank() ? List.of() : List.of(extra.trim().split("\\s+")));
  }

  /** A line of the daemon's /proc status ({@code VmRSS}, {@code VmHWM}) in MB. */
  /** CPU seconds (user + system) the process has used so far, from {@code /proc/<pid>/stat}. */
  static double cpuSeconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // USER_HZ is 100 on Linux
  }

  private static double rssMb(Process p, String field) throws IOException {
    for (String l : Files.readAllLines(Path.of("/proc", String.valueOf(p.pid()), "status"))) {
      if (l.startsWith(field + ":")) {
        return round(Long.parseLong(l.replaceAll("\\D", "")) / 1024.0);
      }
    }
    throw new IOException("no " + field + " in /proc/" + p.pid() + "/status");
  }

  private Process startDaemon(MemorydConfig cfg, long quietMs) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java));
    cmd.addAll(daemonJvm);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve",
        "--root", cfg.root().toString(), "--key-file", cfg.keyFile().toString(), "--quiet-ms", String.valueOf(quietMs)));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(cfg.root().resolveSibling(cfg.root().getFileName() + ".daemon.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Files.exists(cfg.socket())) {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
          if (c.call("ping", null).has("result")) {
            return p;
          }
        } catch (IOException e) {
          // not up yet
        }
      }
      if (!p.isAlive()) {
        throw new IOException("the daemon exited with " + p.exitValue());
      }
      Thread.sleep(50);
    }
    p.destroyForcibly();
    throw new IOException("the daemon did not come up within 60 s");
  }

  /**
   * Human edit to committed event: a save (temp file + rename, as editors do) of one section, then
   * the time until the branch ref moves, polled every 0.2 ms. Saves are spaced past the quiet
   * period so each is measured alone.
   */
  private void benchHuman(MemorydConfig cfg, ObjectNode out) throws Exception {
    try (SocketClient c = SocketClient.connect(cfg.socket())) {
      check(c.call("write", decl("bench-setup", createOps(1))));
    }
    Path f = cfg.root().resolve("users/bench/parts/part-0/profile.md");
    Path ref = cfg.root().resolve(".git/refs/heads/" + cfg.branch());
    Thread.sleep(quietMs + 1000); // the daemon's own write has been looked at
    long[] lat = new long[edits];
    for (int i = 0; i < edits; i++) {
      String before = Files.readString(ref);
      String text = Files.readString(f);
      int at = text.indexOf("<!-- @anchor: role v1 -->\n") + "<!-- @anchor: role v1 -->\n".length();
      String next = text.substring(0, at) + "\nHuman line " + i + ".\n" + text.substring(at);
      Path tmp = f.resolveSibling(".profile.md.swp" + i);
      Files.writeString(tmp, next);
      long t0 = System.nanoTime();
      Files.move(tmp, f, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      long deadline = t0 + TimeUnit.MILLISECONDS.toNanos(quietMs * 10 + 10_000);
      while (Files.readString(ref).equals(before)) {
        if (System.nanoTime() > deadline) {
          throw new IOException("save " + i + " was not committed within " + (quietMs * 10 + 10_000) + " ms");
        }
        Thread.sleep(0, 200_000);
      }
      lat[i] = System.nanoTime() - t0;
      Thread.sleep(200);
    }
    Arrays.sort(lat);
    out.put("mode", "human");
    out.put("edits", edits);
    out.put("quiet_ms", quietMs);
    out.put("p50_ms", round(lat[lat.length / 2] / 1e6));
    out.put("p99_ms", round(lat[(int) Math.min(lat.length - 1, Math.ceil(lat.length * 0.99) - 1)] / 1e6));
    out.put("max_ms", round(lat[lat.length - 1] / 1e6));
    out.put("p99_over_quiet_ms", round(lat[(int) Math.min(lat.length - 1, Math.ceil(lat.length * 0.99) - 1)] / 1e6 - quietMs));
  }

  /**
   * Replay throughput: builds a ledger of {@code --events} events through the daemon (10-op
   * declarations over {@code --parts} parts' notes, with a human's save every 50 declarations), then times
   * {@code replay --verify} in the daemon.
   */
  private void benchReplay(MemorydConfig cfg, ObjectNode out) throws Exception {
    int parts = replayParts;
    try (SocketClient c = SocketClient.connect(cfg.socket())) {
      check(c.call("write", decl("bench-setup", createOps(parts))));
      int decls = 0;
      long written = parts + 1;
      long humans = 0;
      while (written < events) {
        ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
        for (int k = 0; k < 10; k++) {
          ObjectNode o = ops.addObject();
          o.put("op", "append_item");
          o.put("path", "users/bench/parts/part-" + (decls % parts) + "/notes.md");
          o.put("section", "Inbox");
          o.put("item", "note " + decls + "." + k);
        }
        check(c.call("write", decl("replay-bench", ops)));
        written += 10;
        if (++decls % 50 == 0) {
          Path f = cfg.root().resolve("users/bench/parts/part-" + (decls % parts) + "/profile.md");
          String t = Files.readString(f);
          int at = t.indexOf("<!-- @anchor: concerns v1 -->\n") + "<!-- @anchor: concerns v1 -->\n".length();
          Files.writeString(f, t.substring(0, at) + "\nA human note " + decls + ".\n" + t.substring(at));
          JsonNode r = c.call("capture", JsonRpc.MAPPER.createObjectNode().set("paths",
              JsonRpc.MAPPER.createArrayNode().add(cfg.root().relativize(f).toString())));
          check(r);
          written++;
          humans++;
        }
      }
      out.put("mode", "replay");
      out.put("parts", parts);
      out.put("events_built", written);
      out.put("human_edits", humans);
      double best = Double.MAX_VALUE;
      JsonNode last = null;
      for (int i = 0; i < 3; i++) {
        long t = System.nanoTime();
        last = c.call("replay", JsonRpc.MAPPER.createObjectNode().put("verify", true));
        best = Math.min(best, (System.nanoTime() - t) / 1e9);
        check(last);
      }
      out.put("replay_ok", last.get("result").get("ok").asBoolean());
      out.put("replayed_events", last.get("result").get("events").asLong());
      out.put("replay_s", round(best));
      out.put("events_per_s", round(last.get("result").get("events").asLong() / best));
    }
  }

  private static ArrayNode createOps(int parts) {
    ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
    ObjectNode u = ops.addObject();
    u.put("op", "create_entity");
    u.put("user_id", "bench");
    u.put("entity_type", "user");
    u.put("title", "Bench user");
    for (int i = 0; i < parts; i++) {
      ObjectNode p = ops.addObject();
      p.put("op", "create_entity");
      p.put("user_id", "bench");
      p.put("entity_type", "part");
      p.put("entity_id", "part-" + i);
      p.put("title", "Part " + i);
    }
    return ops;
  }

  private static ObjectNode decl(String rationale, ArrayNode ops) {
    ObjectNode d = JsonRpc.MAPPER.createObjectNode();
    d.set("ops", ops);
    d.put("rationale", rationale);
    d.put("actor", "bench");
    return d;
  }

  private static ObjectNode appendOp(int part, long n) {
    ObjectNode o = JsonRpc.MAPPER.createObjectNode();
    o.put("op", "replace_section");
    o.put("path", "users/bench/parts/part-" + part + "/profile.md");
    o.put("section", "Role");
    o.put("content", "Keeps watch over the day's plans; revision " + n
        + ". Steps in when the schedule slips and the inner critic gets loud.");
    return o;
  }

  private void prefill(MemorydConfig cfg, int parts) throws Exception {
    int perDecl = 50;
    int decls = (history + perDecl - 1) / perDecl;
    ExecutorService ex = Executors.newFixedThreadPool(4);
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      final int thread = t;
      fs.add(ex.submit(() -> {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
          for (int d = thread; d < decls; d += 4) {
            ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
            for (int i = 0; i < perDecl; i++) {
              ObjectNode o = JsonRpc.MAPPER.createObjectNode();
              o.put("op", "replace_section");
              o.put("path", "users/bench/parts/part-" + (thread % parts) + "/profile.md");
              o.put("section", "Concerns");
              o.put("content", "History filler " + d + "/" + i + ".");
              ops.add(o);
            }
            check(c.call("write", decl("prefill", ops)));
          }
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get();
    }
    ex.shutdown();
  }

  private void run(MemorydConfig cfg, int parts, int total, long[] lat) throws Exception {
    ExecutorService ex = Executors.newFixedThreadPool(clients);
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < clients; t++) {
      final int client = t;
      fs.add(ex.submit(() -> {
        try (SocketClient c = SocketClient.connect(cfg.socket())) {
          for (int i = client; i < total; i += clients) {
            ArrayNode ops = JsonRpc.MAPPER.createArrayNode();
            ops.add(appendOp(client % parts, (lat == null ? -1 : 1) * (long) i));
            long s = System.nanoTime();
            check(c.call("write", decl("bench", ops)));
            if (lat != null) {
              lat[i] = System.nanoTime() - s;
            }
          }
        }
        return null;
      }));
    }
    for (Future<?> f : fs) {
      f.get();
    }
    ex.shutdown();
  }

  /** The daemon's total JIT compilation time so far (ms), from {@code ping}. */
  private static long jitMs(MemorydConfig cfg) throws IOException {
    try (SocketClient c = SocketClient.connect(cfg.socket())) {
      return c.call("ping", null).path("result").path("runtime").path("jit_ms").asLong(-1);
    }
  }

  private static void check(JsonNode reply) throws IOException {
    if (reply == null || !reply.has("result")) {
      throw new IOException("write failed: " + reply);
    }
  }

  private static long dirSize(Path p) throws IOException {
    try (var s = Files.walk(p)) {
      return s.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }

  /** The physical floor on this machine: what a write cannot be faster than. */
  private static ObjectNode floor(Path dir) throws IOException {
    ObjectNode f = JsonRpc.MAPPER.createObjectNode();
    Path log = dir.resolveSibling(dir.getFileName() + ".floor.log");
    byte[] line = new byte[600];
    Arrays.fill(line, (byte) 'x');
    line[599] = '\n';
    long[] t = new long[2000];
    try (FileChannel ch = FileChannel.open(log, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      for (int i = 0; i < t.length; i++) {
        long s = System.nanoTime();
        ch.write(ByteBuffer.wrap(line));
        ch.force(false);
        t[i] = System.nanoTime() - s;
      }
    }
    Files.deleteIfExists(log);
    f.put("append_fsync_p50_ms", round(pct(t, 50) / 1e6));
    f.put("append_fsync_p99_ms", round(pct(t, 99) / 1e6));
    Path repo = dir.resolveSibling(dir.getFileName() + ".floor-git");
    GitStore.init(repo, "main");
    long[] g = new long[1000];
    // A bare low-level JGit commit as JGit does it by default (loose objects): one blob, one
    // tree, one commit, one ref update.
    try (org.eclipse.jgit.lib.Repository r = new org.eclipse.jgit.storage.file.FileRepositoryBuilder()
        .setGitDir(repo.resolve(".git").toFile()).build()) {
      org.eclipse.jgit.lib.ObjectId parent = null;
      for (int i = 0; i < g.length + 200; i++) {
        PersonIdent who = new PersonIdent("floor", "floor@localhost", Instant.now(), ZoneOffset.UTC);
        long s = System.nanoTime();
        try (org.eclipse.jgit.lib.ObjectInserter ins = r.newObjectInserter()) {
          org.eclipse.jgit.lib.ObjectId blob = ins.insert(org.eclipse.jgit.lib.Constants.OBJ_BLOB,
              ("content " + i + "\n").repeat(20).getBytes(java.nio.charset.StandardCharsets.UTF_8));
          org.eclipse.jgit.lib.TreeFormatter tf = new org.eclipse.jgit.lib.TreeFormatter();
          tf.append("profile.md", org.eclipse.jgit.lib.FileMode.REGULAR_FILE, blob);
          org.eclipse.jgit.lib.CommitBuilder cb = new org.eclipse.jgit.lib.CommitBuilder();
          cb.setTreeId(ins.insert(tf));
          if (parent != null) {
            cb.setParentId(parent);
          }
          cb.setAuthor(who);
          cb.setCommitter(who);
          cb.setMessage("floor " + i + "\n");
          org.eclipse.jgit.lib.ObjectId c = ins.insert(cb);
          ins.flush();
          org.eclipse.jgit.lib.RefUpdate ru = r.updateRef("refs/heads/main");
          ru.setNewObjectId(c);
          ru.update();
          parent = c;
        }
        if (i >= 200) {
          g[i - 200] = System.nanoTime() - s;
        }
      }
    }
    f.put("jgit_commit_p50_ms", round(pct(g, 50) / 1e6));
    f.put("jgit_commit_p99_ms", round(pct(g, 99) / 1e6));
    return f;
  }

  private static long pct(long[] a, int p) {
    long[] c = a.clone();
    Arrays.sort(c);
    return c[Math.min(c.length - 1, (int) Math.ceil(c.length * p / 100.0) - 1)];
  }
}
