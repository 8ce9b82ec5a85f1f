package dev.memoryd.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.cli.Main;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What must hold in a root a daemon child serves while a human uses plain git beside it, checked
 * once writers are quiet: acknowledged items at HEAD and in the working tree, the ledger
 * verifying (through the daemon, the CLI, and the CLI on a fresh {@code git clone}), no memoryd
 * file left dirty in {@code git status}, {@code git fsck --full} clean. Failures are assertions
 * that quote the daemon's log.
 */
final class RootInvariants {
    private final DaemonProcess daemon;
    private final HumanGit git;
    private final Path clones;
    private int cloneCount;

    /** Checks the root {@code daemon} serves; fresh clones are made under {@code clones}. */
    RootInvariants(DaemonProcess daemon, Path clones) {
        this.daemon = daemon;
        this.git = new HumanGit(daemon.config().root());
        this.clones = clones;
    }

    AssertionError failure(String message) {
        return new AssertionError(message + "\n--- daemon log tail ---\n" + daemon.logTail(80));
    }

    /** memoryd's paths: memory files, slices and the ledger. */
    static boolean memorydPath(String path) {
        return path.startsWith("users/") || path.startsWith("ledger/") || path.startsWith(".slices/");
    }

    /** {@code git status --porcelain} lines naming memoryd's paths. */
    List<String> memorydStatus() throws IOException, InterruptedException {
        HumanGit.Result r = git.run("status", "--porcelain", "--untracked-files=all");
        if (!r.ok()) {
            throw failure(r.toString());
        }
        List<String> dirty = new ArrayList<>();
        for (String line : r.out().split("\n")) {
            if (line.length() > 3) {
                String path = line.substring(3);
                int arrow = path.indexOf(" -> ");
                String to = arrow < 0 ? path : path.substring(arrow + 4);
                if (memorydPath(path) || memorydPath(to)) {
                    dirty.add(line);
                }
            }
        }
        return dirty;
    }

    /** Polls until {@code git status} shows none of memoryd's files, at most {@code timeoutMs}. */
    void awaitMemorydFilesClean(String when, long timeoutMs) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        List<String> dirty = memorydStatus();
        while (!dirty.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            dirty = memorydStatus();
        }
        if (!dirty.isEmpty()) {
            throw failure(when + ": git status still shows memoryd's files " + timeoutMs + " ms after writes stopped: "
                    + dirty);
        }
    }

    /** The file's text at {@code rev}, or null when it is not there. */
    String at(String rev, String path) throws IOException, InterruptedException {
        HumanGit.Result r = git.run("show", rev + ":" + path);
        return r.ok() ? r.out() : null;
    }

    /**
     * The acknowledged items (item to its file) missing at HEAD or in the working tree, or standing
     * there more than once (a declaration applied twice: every item is a text of its own), each
     * with the commit its reply named and how often it stands where.
     */
    List<String> missing(Map<String, String> itemPaths, Map<String, String> itemCommits)
            throws IOException, InterruptedException {
        Map<String, String> head = new HashMap<>();
        Map<String, String> tree = new HashMap<>();
        List<String> lost = new ArrayList<>();
        for (Map.Entry<String, String> e : itemPaths.entrySet()) {
            String path = e.getValue();
            String h = head.computeIfAbsent(path, p -> quietly(() -> at("HEAD", p)));
            String w = tree.computeIfAbsent(
                    path,
                    p -> quietly(() -> {
                        Path f = daemon.config().root().resolve(p);
                        return Files.exists(f) ? Files.readString(f) : null;
                    }));
            String line = "- " + e.getKey() + "\n";
            int atHead = occurrences(h, line);
            int inTree = occurrences(w, line);
            if (atHead != 1 || inTree != 1) {
                lost.add(e.getKey() + " (" + path + ", acknowledged in " + itemCommits.get(e.getKey()) + "; at HEAD: "
                        + times(atHead) + ", in the working tree: " + times(inTree) + ")");
            }
        }
        return lost;
    }

    /** How often {@code line} stands in {@code text} as a whole line (null: no file). */
    private static int occurrences(String text, String line) {
        if (text == null) {
            return 0;
        }
        int n = 0;
        for (int at = text.indexOf(line); at >= 0; at = text.indexOf(line, at + line.length())) {
            if (at == 0 || text.charAt(at - 1) == '\n') {
                n++;
            }
        }
        return n;
    }

    private static String times(int n) {
        return switch (n) {
            case 0 -> "missing";
            case 1 -> "once";
            default -> n + " times";
        };
    }

    /** Asserts every acknowledged item stands once at HEAD and once in the working tree. */
    void assertAllPresent(String when, Map<String, String> itemPaths, Map<String, String> itemCommits)
            throws IOException, InterruptedException {
        List<String> lost = missing(itemPaths, itemCommits);
        if (!lost.isEmpty()) {
            throw failure(
                    when + ": " + lost.size() + " of " + itemPaths.size() + " acknowledged writes lost or doubled: "
                            + lost.subList(0, Math.min(10, lost.size())) + "\nHEAD: "
                            + git.run("log", "--oneline", "-5").out());
        }
    }

    /**
     * The ledger verifies: through the daemon ({@code ledger.verify}), with the CLI on the root,
     * and with the CLI on a fresh {@code git clone} of it (which holds only what was committed).
     */
    void assertLedgerVerifies(String when) throws IOException, InterruptedException {
        assertRootVerifies(when);
        assertCloneVerifies(when);
    }

    /**
     * {@link #assertLedgerVerifies} and {@link #assertFsck} at once: the clone and git's fsck only
     * read the root, so they run beside the root's verifications and a long soak's round costs the
     * slowest of the three, not their sum. Returns how long each took, for the soak's log.
     */
    String assertLedgerVerifiesAndFsck(String when) throws IOException, InterruptedException {
        return assertLedgerVerifiesAndFsck(when, true);
    }

    /**
     * As {@link #assertLedgerVerifiesAndFsck(String)}; unless {@code thorough}, the clone is one
     * kept from the check before and brought up to date with {@code git fetch} (what a fresh clone
     * would check out, without packing the whole history again), and git checks connectivity
     * only ({@code fsck --connectivity-only}). Both grow with the history: on a root of ~45,000
     * commits a fresh clone took 19 s and {@code fsck --full} 18 s, the fetch and the connectivity
     * check a fraction of that, so a long soak makes the thorough checks every few rounds.
     */
    String assertLedgerVerifiesAndFsck(String when, boolean thorough) throws IOException, InterruptedException {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.Future<Long> clone = pool.submit(() -> timed(() -> {
                if (thorough) {
                    assertCloneVerifies(when);
                } else {
                    assertFetchedCloneVerifies(when);
                }
            }));
            java.util.concurrent.Future<Long> fsck = pool.submit(() -> timed(() -> {
                if (thorough) {
                    assertFsck(when);
                } else {
                    assertConnected(when);
                }
            }));
            long onRoot = timed(() -> assertRootVerifies(when));
            return "verify " + onRoot + " ms, " + (thorough ? "fresh clone" : "fetched clone") + " and verify "
                    + joined(clone) + " ms, " + (thorough ? "fsck --full " : "fsck --connectivity-only ")
                    + joined(fsck) + " ms";
        } finally {
            pool.shutdownNow();
        }
    }

    private interface Check {
        void run() throws IOException, InterruptedException;
    }

    private static long timed(Check c) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        c.run();
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** The check's time, or its own assertion or exception as it was thrown. */
    private static long joined(java.util.concurrent.Future<Long> f) throws IOException, InterruptedException {
        try {
            return f.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof AssertionError a) {
                throw a;
            }
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof InterruptedException ie) {
                throw ie;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** The ledger verifies through the daemon and with the CLI on the root. */
    private void assertRootVerifies(String when) throws IOException, InterruptedException {
        JsonNode v = daemon.result("ledger.verify", null);
        if (!v.path("ok").asBoolean()) {
            throw failure(when + ": ledger.verify on the served root: " + v);
        }
        Path root = daemon.config().root();
        String onRoot = verifyWithCli(root, daemon.config().keyFile());
        if (onRoot != null) {
            throw failure(when + ": CLI ledger verify on the root: " + onRoot);
        }
    }

    /** A fresh {@code git clone} of the root verifies with the CLI (it holds only what was committed). */
    private void assertCloneVerifies(String when) throws IOException, InterruptedException {
        Path root = daemon.config().root();
        Path clone = clones.resolve("clone-" + (++cloneCount));
        // Through git's transport, as a clone from a remote reads: a local clone copies the object
        // files, and a `git gc --auto` that a human's commit started in the background may remove a
        // loose one meanwhile ("failed to copy file", the soak's round 199 of seed 20261128).
        HumanGit.Result c = HumanGit.in(clones, "clone", "-q", "--no-local", root.toString(), clone.toString());
        if (!c.ok()) {
            throw failure(when + ": " + c);
        }
        String onClone = verifyWithCli(clone, daemon.config().keyFile());
        if (onClone != null) {
            throw failure(when + ": CLI ledger verify on a fresh git clone (HEAD "
                    + git.run("rev-parse", "HEAD").out().strip() + "): " + onClone);
        }
        deleteTree(clone);
    }

    /**
     * A clone kept across checks ({@link #assertLedgerVerifiesAndFsck(String, boolean)}), fetched
     * from the root through git's transport and checked out at the root's branch head, as a fresh
     * clone would be, verifies with the CLI.
     */
    private void assertFetchedCloneVerifies(String when) throws IOException, InterruptedException {
        Path root = daemon.config().root();
        Path kept = clones.resolve("kept");
        HumanGit.Result r = Files.isDirectory(kept)
                ? HumanGit.in(kept, "fetch", "-q", "--prune", "origin")
                : HumanGit.in(clones, "clone", "-q", "--no-local", root.toString(), kept.toString());
        if (!r.ok()) {
            throw failure(when + ": " + r);
        }
        String branch = git.run("symbolic-ref", "--short", "HEAD").out().strip();
        String head = git.run("rev-parse", "HEAD").out().strip();
        for (String[] step : List.of(
                new String[] {"checkout", "-q", "-f", "-B", branch, head},
                new String[] {"clean", "-q", "-f", "-d", "-x"})) {
            HumanGit.Result c = HumanGit.in(kept, step);
            if (!c.ok()) {
                throw failure(when + ": in the kept clone: " + c);
            }
        }
        String onClone = verifyWithCli(kept, daemon.config().keyFile());
        if (onClone != null) {
            throw failure(when + ": CLI ledger verify on a git clone brought up to date by fetch (HEAD " + head + "): "
                    + onClone);
        }
    }

    /** {@code git fsck --connectivity-only} exits 0. */
    private void assertConnected(String when) throws IOException, InterruptedException {
        HumanGit.Result r = fsck("--connectivity-only");
        if (!r.ok()) {
            throw failure(when + ": " + r);
        }
    }

    /**
     * {@code git fsck} with {@code option}, once no {@code git gc} runs; run again once when the
     * pack directory changed while it ran. A human's {@code git commit} may start {@code gc --auto}
     * in the background, which can outlast the round, and an fsck that reads the pack directory
     * while a repack replaces it reports objects of the old packs as missing ("invalid reflog
     * entry", the soak's round 56 of seed 20261134): git's own race, not the repository's state.
     */
    private HumanGit.Result fsck(String option) throws IOException, InterruptedException {
        awaitGitGc();
        List<String> before = packs();
        HumanGit.Result r = git.run("fsck", option);
        if (!r.ok() && !before.equals(packs())) {
            awaitGitGc();
            r = git.run("fsck", option);
        }
        return r;
    }

    private List<String> packs() throws IOException {
        Path dir = daemon.config().root().resolve(".git/objects/pack");
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Waits up to a minute while {@code .git/gc.pid} names a live process (a {@code git gc} running). */
    private void awaitGitGc() throws IOException, InterruptedException {
        Path pid = daemon.config().root().resolve(".git/gc.pid");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String text;
            try {
                text = Files.readString(pid).strip();
            } catch (java.nio.file.NoSuchFileException e) {
                return;
            }
            String number = text.split("\\s+")[0];
            if (!number.matches("[0-9]+") || !Files.exists(Path.of("/proc", number))) {
                return;
            }
            Thread.sleep(100);
        }
    }

    /** {@code git fsck --full} exits 0. */
    void assertFsck(String when) throws IOException, InterruptedException {
        HumanGit.Result r = fsck("--full");
        if (!r.ok()) {
            throw failure(when + ": " + r);
        }
    }

    /**
     * Every event of every ledger file in the working tree, in file order. Lines that are not
     * JSON are an assertion (the tests that read events never tamper with the ledger).
     */
    List<JsonNode> events() throws IOException {
        Path ledger = daemon.config().root().resolve("ledger");
        List<JsonNode> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(ledger)) {
            for (Path f : (Iterable<Path>)
                    s.filter(p -> p.toString().endsWith(".ndjson")).sorted()::iterator) {
                for (String line : Files.readAllLines(f)) {
                    if (!line.isBlank()) {
                        out.add(JsonRpc.MAPPER.readTree(line));
                    }
                }
            }
        }
        return out;
    }

    /**
     * Events a human's edit would make ({@code human_edit}, {@code drift_flagged}) past the example
     * import on files {@code path} accepts, one line each: on files the human never edited, each of
     * them is memoryd mistaking its own files, as git rewrote them, for a human's work.
     */
    List<String> humanEvents(java.util.function.Predicate<String> path) throws IOException {
        List<String> found = new ArrayList<>();
        for (JsonNode e : events()) {
            String op = e.path("op").asText();
            if ((op.equals("human_edit") || op.equals("drift_flagged"))
                    && e.path("seq").asLong() > TestRoot.IMPORT_LINES
                    && path.test(e.path("file_path").asText())) {
                found.add(op + " seq " + e.path("seq").asLong() + " "
                        + e.path("file_path").asText() + " by "
                        + e.path("actor").asText() + " "
                        + e.path("payload").path("drift").path("reason").asText(""));
            }
        }
        return found;
    }

    private static final Object CLI = new Object();

    /**
     * Runs the CLI's {@code ledger verify --root ROOT --key-file KEY} (in this JVM, so the soak
     * stays fast); null when it exits 0, else its exit code and output.
     */
    static String verifyWithCli(Path root, Path keyFile) {
        synchronized (CLI) {
            PrintStream oldOut = System.out;
            PrintStream oldErr = System.err;
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            PrintStream capture = new PrintStream(buf, true, StandardCharsets.UTF_8);
            int code;
            try {
                System.setOut(capture);
                System.setErr(capture);
                code = Main.run("ledger", "verify", "--root", root.toString(), "--key-file", keyFile.toString());
            } finally {
                System.setOut(oldOut);
                System.setErr(oldErr);
            }
            return code == 0
                    ? null
                    : "exit " + code + ": "
                            + buf.toString(StandardCharsets.UTF_8).strip();
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    private interface IoSupplier<T> {
        T get() throws IOException, InterruptedException;
    }

    private static <T> T quietly(IoSupplier<T> s) {
        try {
            return s.get();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
