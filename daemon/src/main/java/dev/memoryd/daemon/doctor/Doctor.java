package dev.memoryd.daemon.doctor;

import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.ReadOnlyRoot;
import dev.memoryd.ledger.VerifyResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks of {@code memoryd doctor} on one root, each a {@link Finding} that names the command
 * fixing what it found. Changes nothing: no file, ref, index, key or {@code .memoryd/} state is
 * written (git runs with optional locks off; the ledger is read as {@code ledger verify} reads it),
 * and a missing key file is reported, never created.
 */
public final class Doctor {
    private final MemorydConfig cfg;
    private final GitCli git;

    public Doctor(MemorydConfig cfg) {
        this.cfg = cfg;
        this.git = new GitCli(cfg.root());
    }

    /** Every check, in the order printed; a root that is not a memory root is the one finding. */
    public List<Finding> run() throws IOException {
        String r = cfg.root().toString();
        java.util.Optional<dev.memoryd.daemon.layout.LinkedWorktree> linked =
                dev.memoryd.daemon.layout.LinkedWorktree.of(cfg.root());
        if (linked.isPresent()) {
            return List.of(Finding.problem(
                    "root",
                    linked.get().refusal(),
                    "bin/memoryd doctor --root " + linked.get().main()));
        }
        if (!Files.isDirectory(cfg.root().resolve(".git"))) {
            return List.of(
                    Finding.problem("root", r + " is not a memory root (no .git)", "bin/memoryd init --root " + r));
        }
        List<Finding> out = new ArrayList<>();
        out.addAll(daemon());
        out.addAll(keyAndLedger());
        out.add(fsck());
        out.add(index());
        out.add(lineEnds());
        out.add(indexFormat());
        out.addAll(locks());
        return out;
    }

    private List<Finding> daemon() throws IOException {
        String r = cfg.root().toString();
        DaemonProbe.State s = DaemonProbe.probe(cfg.socket(), cfg.stateDir().resolve("daemon.pid"));
        if (s instanceof DaemonProbe.StaleSocket) {
            return List.of(Finding.problem(
                    "socket",
                    cfg.socket() + " is left over: no daemon listens on it",
                    "rm " + cfg.socket() + "   (or start a daemon, which replaces it: bin/memoryd serve --root " + r
                            + ")"));
        }
        if (!(s instanceof DaemonProbe.Serving serving)) {
            return List.of(Finding.ok("daemon", "no daemon serves " + r + " (writer and watcher not checked)"));
        }
        String restart = serving.pid().isPresent()
                ? "kill " + serving.pid().getAsLong() + " && bin/memoryd serve --root " + r
                : "stop the daemon, then: bin/memoryd serve --root " + r;
        List<Finding> out = new ArrayList<>();
        out.add(Finding.ok(
                "daemon",
                "serving " + r
                        + (serving.pid().isPresent() ? " (pid " + serving.pid().getAsLong() + ")" : "")));
        DaemonPing.Writer w = serving.ping().writer();
        String ws = w.state() == null ? "ok" : w.state();
        out.add(
                ws.equals("ok")
                        ? Finding.ok("writer", "ok (" + w.failures() + " failures since start)")
                        : Finding.problem(
                                "writer",
                                ws + " after " + w.failures() + " failures; last error at "
                                        + orElse(w.lastErrorAt(), "?") + ": "
                                        + orElse(w.lastError(), "?"),
                                "fix what the error names (disk space, permissions, a lock), then, if the writer stays "
                                        + ws + ": " + restart));
        DaemonPing.Watcher watcher = serving.ping().watcher();
        String watch = orElse(watcher.state(), "off");
        out.add(
                switch (watch) {
                    case "running", "starting" -> Finding.ok("watcher", watch);
                    case "off" ->
                        Finding.ok(
                                "watcher",
                                "off (the daemon was started with --no-watch; edits are captured before"
                                        + " agents' writes to their file and by bin/memoryd capture)");
                    default ->
                        Finding.problem(
                                "watcher",
                                watch + ": " + orElse(watcher.lastError(), "no error recorded"),
                                "bin/memoryd capture --root " + r + " records edits now; to watch again: " + restart);
                });
        return out;
    }

    private static String orElse(String s, String absent) {
        return s == null ? absent : s;
    }

    private List<Finding> keyAndLedger() throws IOException {
        String r = cfg.root().toString();
        Path key = cfg.keyFile();
        if (!Files.isRegularFile(key)) {
            return List.of(
                    Finding.problem(
                            "key",
                            "no key file at " + key,
                            "copy the key the ledger was written with"
                                    + " there (mode 0600), or name it: --key-file <path> or MEMORYD_KEY_FILE"),
                    Finding.notChecked("ledger", "not verified: no key file"));
        }
        VerifyResult v;
        try (ReadOnlyRoot m = Memoryd.openReadOnly(cfg)) {
            v = m.verify();
        }
        if (v.ok()) {
            return List.of(
                    Finding.ok("key", key + " matches the ledger"),
                    Finding.ok("ledger", v.lines() + " lines verified"));
        }
        if (VerifyResult.WRONG_KEY.equals(v.reason())) {
            return List.of(
                    Finding.problem(
                            "key",
                            key + " does not match the ledger: " + v.message(),
                            "name the key the ledger was written with: --key-file <path> or MEMORYD_KEY_FILE"),
                    Finding.notChecked("ledger", "not verified: wrong key"));
        }
        String where = v.firstBadFile() + " line " + v.firstBadLine();
        boolean edited =
                git.run("diff", "--quiet", "HEAD", "--", v.firstBadFile()).code() == 1;
        String fix = edited
                ? "git -C " + r + " diff HEAD -- " + v.firstBadFile() + " shows the edit; git -C " + r
                        + " checkout HEAD -- " + v.firstBadFile()
                        + " restores the committed file (then run doctor again)"
                : "the committed file fails too: restore " + v.firstBadFile() + " from a replica (git -C " + r
                        + " checkout <remote>/<branch> -- " + v.firstBadFile()
                        + ") or a backup; bin/memoryd ledger verify --root "
                        + r + " --json gives the details";
        return List.of(
                Finding.ok("key", key + " authenticates the ledger"),
                Finding.problem("ledger", "fails at " + where + ": " + v.reason() + ": " + v.message(), fix));
    }

    private Finding fsck() throws IOException {
        try {
            GitCli.Result f = git.run("fsck", "--no-progress", "--no-dangling");
            if (f.code() == 0) {
                return Finding.ok("fsck", "git fsck clean");
            }
            return Finding.problem(
                    "fsck",
                    "git fsck: " + firstLines(f.output(), 3),
                    "git -C " + cfg.root()
                            + " fsck --full lists every problem; fetch missing objects back from a replica: git -C "
                            + cfg.root() + " fetch <remote>");
        } catch (GitCli.NoGit e) {
            return Finding.notChecked("fsck", e.getMessage());
        }
    }

    /** Git writes memory files into the working tree as their blobs hold them, or the root is not served. */
    private Finding lineEnds() throws IOException {
        return dev.memoryd.daemon.Memoryd.lineEndConversion(cfg)
                .map(c -> Finding.problem(
                        "line ends",
                        "git converts " + c.path() + " (" + c.cause() + "); memoryd will not serve this root",
                        c.fix(cfg.root())))
                .orElse(Finding.ok("line ends", "git keeps memory files byte for byte"));
    }

    /** Git's index is in a form memoryd reads (not split, not sparse), or the root is not served. */
    private Finding indexFormat() throws IOException {
        return dev.memoryd.daemon.Memoryd.indexFormat(cfg)
                .map(f -> Finding.problem(
                        "index format",
                        "git's index is " + f.kind() + " (" + f.cause() + "); memoryd will not serve this root",
                        f.fix(cfg.root())))
                .orElse(Finding.ok("index format", "git's index is one file memoryd reads"));
    }

    /** The ledger is memoryd's alone: an index entry of it that differs from HEAD is an index out of step. */
    private Finding index() throws IOException {
        try {
            GitCli.Result d = git.run("diff", "--cached", "--name-only", "HEAD", "--", "ledger");
            if (d.code() != 0) {
                return Finding.problem(
                        "index",
                        "git diff --cached failed: " + firstLines(d.output(), 2),
                        "git -C " + cfg.root() + " status shows why");
            }
            if (d.output().isEmpty()) {
                return Finding.ok("index", "in step with HEAD for the ledger");
            }
            List<String> files = d.output().lines().toList();
            return Finding.problem(
                    "index",
                    files.size() + " ledger file(s) staged differently from HEAD (" + files.get(0)
                            + (files.size() > 1 ? ", ..." : "") + ")",
                    "git -C " + cfg.root() + " reset -q -- ledger");
        } catch (GitCli.NoGit e) {
            return Finding.notChecked("index", e.getMessage());
        }
    }

    private List<Finding> locks() throws IOException {
        List<Path> stale = StaleLocks.find(cfg.root().resolve(".git"));
        if (stale.isEmpty()) {
            return List.of(Finding.ok("locks", "no stale git lock"));
        }
        List<Finding> out = new ArrayList<>();
        for (Path p : stale) {
            out.add(Finding.problem(
                    "locks",
                    p + " is left over from a git or memoryd process that stopped holding it;"
                            + " git commands and memoryd's writes wait on it",
                    "rm " + p + "   (when no git command is running)"));
        }
        return out;
    }

    private static String firstLines(String s, int n) {
        return String.join("; ", s.lines().limit(n).toList());
    }
}
