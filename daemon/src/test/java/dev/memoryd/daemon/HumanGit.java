package dev.memoryd.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The plain {@code git} CLI run by a human in a working tree (never JGit): a fixed author and
 * committer identity from the environment, no editor, no prompts. A failed command is a value
 * ({@link Result}), since humans meet failures such as a busy lock and run the command again.
 */
final class HumanGit {
    static final String NAME = "Hu Man";
    static final String EMAIL = "human@example.org";

    /** The human's own file, which they change before each of their commits (never a memory file). */
    static final String OWN_FILE = "human/todo.txt";

    private final Path dir;
    private int ownEdits;
    /** Commands run and commands that failed on a busy lock, by git subcommand. */
    final Map<String, LongAdder> runs = new ConcurrentHashMap<>();

    final Map<String, LongAdder> busy = new ConcurrentHashMap<>();

    HumanGit(Path dir) {
        this.dir = dir;
    }

    /** The line {@link #editOwnFile} appended last. */
    String lastOwnLine() {
        return "- todo " + ownEdits + "\n";
    }

    /**
     * The paths a merge (a {@code stash pop}, a {@code merge}) reported in content conflict, as git
     * names them; any other conflict's whole line.
     */
    static List<String> conflictedPaths(Result r) {
        List<String> paths = new ArrayList<>();
        for (String line : r.out().split("\n")) {
            int at = line.indexOf("Merge conflict in ");
            if (line.startsWith("CONFLICT")) {
                // another kind of conflict (modify/delete, rename) is kept whole: it names no path alone
                paths.add(
                        at >= 0
                                ? line.substring(at + "Merge conflict in ".length())
                                        .strip()
                                : line);
            }
        }
        return paths;
    }

    /**
     * The paths a refused {@code git stash pop} (or merge) names as local changes it would
     * overwrite ("Your local changes to the following files would be overwritten by merge:").
     */
    static List<String> wouldOverwrite(Result r) {
        List<String> paths = new ArrayList<>();
        boolean listing = false;
        for (String line : r.out().split("\n")) {
            if (line.contains("would be overwritten by merge:")) {
                listing = true;
            } else if (listing && line.startsWith("\t")) {
                paths.add(line.strip());
            } else {
                listing = false;
            }
        }
        return paths;
    }

    /** Appends a line to {@link #OWN_FILE}. */
    void editOwnFile() throws IOException {
        Path f = dir.resolve(OWN_FILE);
        Files.createDirectories(f.getParent());
        Files.writeString(f, "- todo " + (++ownEdits) + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    Path dir() {
        return dir;
    }

    /** What one git command did: its exit code and its stdout and stderr together. */
    record Result(List<String> args, int exit, String out) {
        boolean ok() {
            return exit == 0;
        }

        /**
         * The command failed only because a lock was taken: the index ({@code index.lock}: File
         * exists), a ref ({@code cannot lock ref}), or git's own {@code gc.pid} (a {@code git gc}
         * while the automatic gc an earlier command started in the background still runs). Nothing
         * changed, the human runs it again.
         */
        boolean lockBusy() {
            return exit != 0
                    && (out.contains("index.lock': File exists")
                            || out.contains("cannot lock ref")
                            || out.contains(".lock': File exists")
                            || out.contains("gc is already running")
                            || silentStashRefresh());
        }

        /**
         * {@code git stash} and {@code stash pop} refresh the index first and, when its lock is
         * busy, exit 1 saying nothing (pop adds only "The stash entry is kept..."): git 2.39's
         * stash.c ignores the lock error of refresh_and_write_cache.
         */
        private boolean silentStashRefresh() {
            String o = out.strip();
            return !args.isEmpty()
                    && args.get(0).equals("stash")
                    && exit == 1
                    && (o.isEmpty() || o.equals("The stash entry is kept in case you need it again."));
        }

        /** A lock failure on a ref: git may have done its work on the files and failed to move the ref. */
        boolean refLockFailed() {
            return exit != 0 && out.contains("cannot lock ref");
        }

        @Override
        public String toString() {
            return "git " + String.join(" ", args) + " -> exit " + exit + ": " + out.strip();
        }
    }

    /** Runs {@code git args} in the working tree. */
    Result run(String... args) throws IOException, InterruptedException {
        Result r = in(dir, args);
        runs.computeIfAbsent(args[0], k -> new LongAdder()).increment();
        if (r.lockBusy()) {
            busy.computeIfAbsent(args[0], k -> new LongAdder()).increment();
        }
        return r;
    }

    /** Lock failures out of runs, by subcommand, e.g. {@code commit=2/40}. */
    Map<String, String> lockStats() {
        Map<String, String> m = new java.util.TreeMap<>();
        runs.forEach((k, v) -> m.put(k, busy.getOrDefault(k, new LongAdder()).sum() + "/" + v.sum()));
        return m;
    }

    /** Runs {@code git args}; an assertion naming the output unless it exits 0. Returns the output. */
    String ok(String... args) throws IOException, InterruptedException {
        Result r = run(args);
        if (!r.ok()) {
            throw new AssertionError(r.toString());
        }
        return r.out();
    }

    /** Runs {@code git args} again while it fails on a busy lock (at most {@code tries} times). */
    Result retryingLocks(int tries, String... args) throws IOException, InterruptedException {
        Result r = run(args);
        for (int i = 1; i < tries && r.lockBusy(); i++) {
            Thread.sleep(5 + 5L * i);
            r = run(args);
        }
        return r;
    }

    /**
     * {@code git stash} as a human runs it beside a writer: run again while it fails on a busy lock
     * before saving anything; when it saved the stash but its own reset then failed on a lock (the
     * working tree still holds the changes), finish that reset with {@code git reset --hard}.
     */
    Result stash(int tries) throws IOException, InterruptedException {
        int before = stashEntries();
        Result r = run("stash");
        for (int i = 1; i < tries && r.lockBusy() && stashEntries() == before; i++) {
            Thread.sleep(5 + 5L * i);
            r = run("stash");
        }
        if (!r.ok() && r.lockBusy() && stashEntries() > before) {
            Result reset = retryingLocks(tries, "reset", "-q", "--hard");
            return new Result(r.args(), reset.exit(), r.out() + "\n(saved; then " + reset + ")");
        }
        return r;
    }

    /**
     * {@code git revert --no-edit commit} as a human runs it beside a writer: run again while it
     * fails on a busy lock before changing anything; when it failed on the ref lock after staging
     * the revert (git leaves it in the index and working tree, its message in {@code MERGE_MSG}, and
     * running the revert again is refused: "your local changes would be overwritten"), finish it
     * with {@code git commit --no-edit}.
     */
    Result revert(int tries, String commit) throws IOException, InterruptedException {
        Result r = run("revert", "--no-edit", commit);
        for (int i = 1; i < tries && r.lockBusy() && !r.refLockFailed(); i++) {
            Thread.sleep(5 + 5L * i);
            r = run("revert", "--no-edit", commit);
        }
        if (r.refLockFailed()) {
            Result c = retryingLocks(tries, "commit", "-q", "--no-edit");
            return new Result(r.args(), c.exit(), r.out() + "\n(staged; then " + c + ")");
        }
        return r;
    }

    int stashEntries() throws IOException, InterruptedException {
        return (int) ok("stash", "list").lines().count();
    }

    /** Runs {@code git args} in {@code dir} as the human. */
    static Result in(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("GIT_AUTHOR_NAME", NAME);
        env.put("GIT_AUTHOR_EMAIL", EMAIL);
        env.put("GIT_COMMITTER_NAME", NAME);
        env.put("GIT_COMMITTER_EMAIL", EMAIL);
        env.put("GIT_EDITOR", "true");
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("LC_ALL", "C");
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(List.of(args), p.waitFor(), out);
    }
}
