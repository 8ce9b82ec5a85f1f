package dev.memoryd.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A human at random beside writing agents, seeded: {@code git commit -am}, {@code git add -A}
 * and commit, {@code git commit -a --amend} of the last commit, {@code git reset --hard HEAD~k} (k 1..5) and back to the head it left,
 * {@code git stash} and {@code pop}, {@code git checkout -b x} and back (x deleted), {@code git
 * gc}, editor saves of the notes (temp file and rename, an item added to the Inbox by hand), and
 * in one round of four a storage fault (an immutable directory, a full disk) for 0.5 to 2 s.
 * Every reset is returned from. Git commands that fail on a busy lock are run again; any other failure is an anomaly.
 *
 * <p>Words the human saved are expected at HEAD once captured, except those saved before a reset
 * in the same round: a {@code reset --hard} throws away what was not committed, which is the
 * human's own doing.
 */
final class ChaosHuman {
    static final String NOTES = "users/sam/notes.md";
    private static final String INBOX = "<!-- @anchor: inbox v1 -->\n\n";

    private final HumanGit git;
    private final FaultInjector faults;
    private final Path root;
    private final Random rnd;
    private final Supplier<List<Path>> agentDirs;
    private int round;
    private int wordCount;

    /** How often each action was done. */
    final Map<String, Integer> done = new TreeMap<>();
    /** Git failures other than a busy lock, and broken expectations (e.g. the notes lost their Inbox). */
    final List<String> anomalies = new ArrayList<>();
    /** This round's actions and outcomes, for failure messages. */
    final List<String> roundLog = new ArrayList<>();
    /** Words that must be in the notes at HEAD and in the working tree. */
    final Set<String> words = new LinkedHashSet<>();
    /** Words saved this round and not yet thrown away by a reset. */
    final Set<String> pending = new LinkedHashSet<>();

    ChaosHuman(HumanGit git, FaultInjector faults, Random rnd, Supplier<List<Path>> agentDirs) {
        this.git = git;
        this.faults = faults;
        this.root = git.dir();
        this.rnd = rnd;
        this.agentDirs = agentDirs;
    }

    /**
     * Acts at random, with short pauses, until {@code deadline} (System.nanoTime) or an anomaly. One
     * round in four also meets one storage fault, at a random moment.
     */
    void playUntil(long deadline, int round) throws IOException, InterruptedException {
        this.round = round;
        roundLog.clear();
        long start = System.nanoTime();
        long faultAt = rnd.nextInt(4) == 0 ? start + (long) (rnd.nextDouble() * (deadline - start)) : Long.MAX_VALUE;
        while (System.nanoTime() < deadline && anomalies.isEmpty()) {
            if (System.nanoTime() >= faultAt) {
                faultAt = Long.MAX_VALUE;
                if (rnd.nextBoolean()) {
                    immutableDirectory();
                } else {
                    fullDisk();
                }
            } else {
                act();
            }
            Thread.sleep(20 + rnd.nextInt(230));
        }
    }

    /** Words expected now: the earlier rounds' and this round's that no reset threw away. */
    Set<String> expectedWords() {
        Set<String> all = new LinkedHashSet<>(words);
        all.addAll(pending);
        return all;
    }

    /** The round's words were found where expected: they stay expected from now on. */
    void roundChecked() {
        words.addAll(pending);
        pending.clear();
    }

    private void act() throws IOException, InterruptedException {
        int pick = rnd.nextInt(19);
        if (pick < 3) {
            commitAll();
        } else if (pick == 18) {
            amend();
        } else if (pick < 5) {
            addAllAndCommit();
        } else if (pick < 8) {
            resetAndBack();
        } else if (pick < 11) {
            stashAndPop();
        } else if (pick < 13) {
            branchAndBack();
        } else if (pick < 14) {
            gc();
        } else {
            editorSave();
        }
    }

    private void did(String action, String outcome) {
        done.merge(action, 1, Integer::sum);
        roundLog.add(action + (outcome.isEmpty() ? "" : ": " + outcome));
    }

    /** False (and an anomaly) when {@code r} failed. */
    private boolean expectOk(String action, HumanGit.Result r) {
        if (!r.ok()) {
            anomalies.add("round " + round + ", " + action + ": " + r);
            roundLog.add(action + " FAILED: " + r);
            return false;
        }
        return true;
    }

    private void committed() {
        words.addAll(pending); // in the human's own commit now: a reset and return keeps them
        pending.clear();
    }

    private void commitAll() throws IOException, InterruptedException {
        git.editOwnFile();
        if (expectOk("commit -am", git.retryingLocks(100, "commit", "-qam", "human: round " + round + " commit -am"))) {
            committed();
            did("commit -am", "");
        }
    }

    /**
     * {@code git commit -a --amend} with a message of the human's: the last commit is most often
     * one of memoryd's, whose tree (its declarations and their ledger lines) the amended commit
     * keeps without memoryd's trailer, and whose agent author git keeps.
     */
    private void amend() throws IOException, InterruptedException {
        git.editOwnFile();
        if (expectOk(
                "commit --amend",
                git.retryingLocks(100, "commit", "-qa", "--amend", "-m", "human: round " + round + " amend"))) {
            committed();
            did("commit -a --amend", "");
        }
    }

    private void addAllAndCommit() throws IOException, InterruptedException {
        git.editOwnFile();
        if (expectOk("add -A", git.retryingLocks(100, "add", "-A"))
                && expectOk("commit", git.retryingLocks(100, "commit", "-qm", "human: round " + round + " add -A"))) {
            committed();
            did("add -A && commit", "");
        }
    }

    private void resetAndBack() throws IOException, InterruptedException {
        int k = 1 + rnd.nextInt(5);
        // Early in a run the branch may have fewer commits than k: reset no further than its root.
        k = Math.min(k, Integer.parseInt(git.ok("rev-list", "--count", "HEAD").strip()) - 1);
        if (k < 1) {
            did("reset --hard HEAD~k", "skipped: the branch has one commit");
            return;
        }
        String action = "reset --hard HEAD~" + k;
        HumanGit.Result back = git.run("reset", "-q", "--hard", "HEAD~" + k);
        pending.clear();
        if (back.lockBusy()) {
            did(
                    "reset --hard HEAD~k",
                    "k=" + k + (back.refLockFailed() ? ", the ref move failed (" : ", index busy (")
                            + back.out().strip() + ")");
            return;
        }
        if (!expectOk(action, back)) {
            return;
        }
        String orig = git.ok("rev-parse", "ORIG_HEAD").strip();
        Thread.sleep(rnd.nextInt(300)); // the agents write while the branch is moved
        if (expectOk("reset --hard back to " + orig, git.retryingLocks(100, "reset", "-q", "--hard", orig))) {
            did("reset --hard HEAD~k", "k=" + k + ", moved, back to " + orig.substring(0, 10));
        }
    }

    private void stashAndPop() throws IOException, InterruptedException {
        git.editOwnFile();
        HumanGit.Result stash = git.stash(100);
        if (!expectOk("stash", stash)) {
            return;
        }
        Thread.sleep(rnd.nextInt(300));
        HumanGit.Result pop = git.retryingLocks(100, "stash", "pop");
        for (int i = 0; i < 25 && memorydsOnly(HumanGit.wouldOverwrite(pop)); i++) {
            // git refused the pop before touching anything, over files only memoryd writes (a git
            // command's rollback that memoryd has not put in step yet): the human looks, waits, and
            // runs it again.
            Thread.sleep(200);
            pop = git.retryingLocks(100, "stash", "pop");
        }
        List<String> conflicts = HumanGit.conflictedPaths(pop);
        if (!pop.ok() && !conflicts.isEmpty() && conflicts.stream().allMatch(ChaosHuman::memorydWrites)) {
            popConflictedInTheGap(conflicts);
            return;
        }
        if (expectOk("stash pop", pop)) {
            did("stash && stash pop", stash.out().contains("(saved; then") ? "stash's own reset met a lock" : "");
        }
    }

    /**
     * A stash taken in git's unlocked moment (see HUMANS.md) holds memoryd's writes of that moment,
     * and its pop can conflict in them. Git applies the rest and keeps the entry; the human, told
     * so by git, checks that their own change came back and drops the entry. The round's checks
     * then say whether memoryd put its text back and lost nothing.
     */
    private void popConflictedInTheGap(List<String> conflicts) throws IOException, InterruptedException {
        String own = Files.readString(root.resolve(HumanGit.OWN_FILE));
        if (!own.endsWith(git.lastOwnLine())) {
            anomalies.add("round " + round + ": a stash pop that conflicted in " + conflicts
                    + " did not bring back the human's own change:\n" + own);
            return;
        }
        if (expectOk("stash drop", git.retryingLocks(100, "stash", "drop"))) {
            did("stash && stash pop", "the pop conflicted in memoryd's " + conflicts + "; dropped");
        }
    }

    private static boolean memorydsOnly(List<String> paths) {
        return !paths.isEmpty() && paths.stream().allMatch(ChaosHuman::memorydWrites);
    }

    /** Files only memoryd writes in this soak: the agents' parts and the ledger. */
    private static boolean memorydWrites(String path) {
        return path.startsWith("ledger/") || path.startsWith("users/sam/parts/soak-");
    }

    private void branchAndBack() throws IOException, InterruptedException {
        if (!expectOk("checkout -b x", git.retryingLocks(100, "checkout", "-q", "-b", "x"))) {
            return;
        }
        Thread.sleep(rnd.nextInt(300));
        if (expectOk("checkout main", git.retryingLocks(100, "checkout", "-q", "main"))
                && expectOk("branch -D x", git.retryingLocks(100, "branch", "-q", "-D", "x"))) {
            did("checkout -b x and back", "");
        }
    }

    private void gc() throws IOException, InterruptedException {
        HumanGit.Result r = git.run("gc", "-q");
        if (r.lockBusy()) {
            did("gc", "met a lock (" + r.out().strip() + ")");
        } else if (expectOk("gc", r)) {
            did("gc", "");
        }
    }

    /** An editor's save: the whole file written to a swap file, renamed over the notes. */
    private void editorSave() throws IOException {
        Path f = root.resolve(NOTES);
        String text = Files.readString(f);
        int at = text.indexOf(INBOX);
        if (at < 0) {
            anomalies.add("round " + round + ": the notes lost their Inbox section:\n" + text);
            return;
        }
        String word = "human r" + round + " w" + (++wordCount);
        at += INBOX.length();
        Path swap = f.resolveSibling(".notes.md.swp");
        Files.writeString(swap, text.substring(0, at) + "- " + word + "\n" + text.substring(at));
        Files.move(swap, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        pending.add(word);
        did("editor save", word);
    }

    private void immutableDirectory() throws IOException, InterruptedException {
        if (!faults.canMakeImmutable()) {
            return;
        }
        List<Path> candidates = new ArrayList<>(agentDirs.get());
        candidates.add(root.resolve("users/sam"));
        candidates.add(root.resolve(".git/objects/pack"));
        candidates.add(root.resolve(".git/refs/heads"));
        try (Stream<Path> groups = Files.list(root.resolve("ledger/main"))) {
            groups.sorted().reduce((a, b) -> b).ifPresent(candidates::add);
        }
        try (Stream<Path> objects = Files.list(root.resolve(".git/objects"))) {
            objects.filter(p -> p.getFileName().toString().matches("[0-9a-f]{2}"))
                    .findAny()
                    .ifPresent(candidates::add);
        }
        candidates.removeIf(p -> !Files.isDirectory(p));
        Path dir = candidates.get(rnd.nextInt(candidates.size()));
        int ms = 500 + rnd.nextInt(1500);
        faults.makeImmutable(dir);
        try {
            Thread.sleep(ms);
        } finally {
            faults.makeMutable(dir);
        }
        did("fault: immutable directory", root.relativize(dir) + " for " + ms + " ms");
    }

    private void fullDisk() throws IOException, InterruptedException {
        if (!faults.canFillDisk()) {
            return;
        }
        if (!faults.fillDisk()) {
            did("fault: full disk", "could not shrink the tmpfs (it kept growing)");
            return;
        }
        int ms = 500 + rnd.nextInt(1500);
        try {
            Thread.sleep(ms);
        } finally {
            faults.freeDisk();
        }
        did("fault: full disk", ms + " ms");
    }
}
