package dev.memoryd.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two agents write to a daemon child process (about 40 declarations a second in all; one is
 * answered once its write is committed, the other once its ledger lines are durable) while a
 * {@link ChaosHuman} uses plain git in the same working tree and storage faults strike. After
 * every round, with the writers stopped: every acknowledged write is at HEAD and in the working
 * tree (the human never removes an agent's item, and always returns from a reset), the human's
 * saved words too, the ledger verifies on the root and on a clone, {@code git status} shows
 * none of memoryd's files, {@code git fsck} is clean, no human edit or drift is recorded on the
 * agents' files, and writes go on. The clone is a fresh one and the fsck {@code --full} in the
 * first 20 rounds and every tenth after ({@link #thorough}). A writer that stopped on a fault is restarted (as an
 * operator would) and counted in the summary. 20 rounds by default; {@code
 * -Dmemoryd.soakRounds=500} for a long run, {@code -Dmemoryd.soakSeed=N} to replay one, {@code
 * -Dmemoryd.soakFaults=false} for git alone.
 */
class ChaosSoakTest {
    private static final long ROUND_MS = 2500;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp; // a failure leaves daemon.log and a copy of the root

    FaultInjector faults;
    MemorydConfig cfg;
    DaemonProcess daemon;
    RootInvariants root;
    HumanGit git;
    ChaosHuman human;
    final List<AgentStream> streams = new ArrayList<>();
    /** The part each agent writes to (a new one every 10 rounds keeps files small in long runs). */
    final List<String> parts = new ArrayList<>(List.of("", ""));

    final Map<String, String> ackedPaths = new HashMap<>();
    final Map<String, String> ackedCommits = new HashMap<>();
    final Map<String, Integer> refused = new TreeMap<>();
    final List<String> restarts = new ArrayList<>();
    int sent;
    /** Acknowledged writes missing at the last check. */
    int lost;

    @AfterEach
    void stop() throws Exception {
        streams.forEach(AgentStream::abandon);
        if (daemon != null) {
            daemon.close();
        }
        if (faults != null) {
            faults.close();
        }
    }

    @Test
    void agentsWriteWhileAHumanUsesGitAndFaultsStrike_noAcknowledgedWriteIsLost() throws Exception {
        int rounds = Integer.getInteger("memoryd.soakRounds", 20);
        long seed = Long.getLong("memoryd.soakSeed", 20261124L);
        System.out.println(
                "chaos soak: seed " + seed + " (-Dmemoryd.soakSeed), " + rounds + " rounds (-Dmemoryd.soakRounds)");
        faults = FaultInjector.probe(tmp, Boolean.parseBoolean(System.getProperty("memoryd.soakFaults", "true")));
        faults.notes().forEach(n -> System.out.println("chaos soak: " + n));
        cfg = MemorydConfig.defaults(faults.base().resolve("memory"), tmp.resolve("ledger.key"));
        Memoryd.init(cfg, TestRoot.exampleTree());
        Files.createDirectories(tmp.resolve("clones"));
        serve();
        daemon.awaitImported();
        git = new HumanGit(cfg.root());
        git.editOwnFile();
        git.ok("add", HumanGit.OWN_FILE);
        git.ok("commit", "-qm", "human: start a todo list");
        human = new ChaosHuman(
                git,
                faults,
                new Random(seed),
                () -> parts.stream()
                        .map(p -> cfg.root().resolve("users/sam/parts/" + p))
                        .toList());
        int done = 0;
        try {
            for (int round = 0; round < rounds; round++) {
                if (round % 10 == 0) {
                    newParts(round);
                }
                List<AgentStream> agents = new ArrayList<>();
                for (int a = 0; a < 2; a++) {
                    AgentStream s = AgentStream.start(
                            daemon,
                            "users/sam/parts/" + parts.get(a) + "/profile.md",
                            a == 0 ? "Triggers" : "Needs",
                            "r" + round + " a" + a + " item ",
                            20,
                            a == 0 ? "commit" : "ledger");
                    streams.add(s);
                    agents.add(s);
                }
                human.playUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ROUND_MS), round);
                for (AgentStream s : agents) {
                    s.stop();
                    streams.remove(s);
                    sent += s.sent.size();
                    s.acked.forEach((item, commit) -> {
                        ackedPaths.put(item, s.path());
                        ackedCommits.put(item, commit);
                    });
                    s.refusals().forEach((k, v) -> refused.merge(k, v, Integer::sum));
                }
                long checkStart = System.nanoTime();
                String checkTimes;
                try {
                    checkTimes = checkQuietRound(round, thorough(round, rounds));
                } catch (AssertionError e) {
                    keepRootForDiagnosis();
                    throw new AssertionError(
                            "round " + round + " (seed " + seed + "): " + e.getMessage() + "\nthe round's human: "
                                    + human.roundLog + "\nanomalies so far: " + human.anomalies,
                            e);
                }
                done++;
                System.out.println("chaos soak: round " + round + " checked in "
                        + (System.nanoTime() - checkStart) / 1_000_000 + " ms (" + checkTimes
                        + "); acknowledged so far " + ackedPaths.size() + "; " + human.roundLog);
            }
        } finally {
            if (human != null) {
                System.out.println(
                        "chaos soak summary: seed " + seed + ", rounds " + done + "/" + rounds + ", writes sent " + sent
                                + ", acknowledged " + ackedPaths.size() + ", refused " + refused + ", lost " + lost
                                + "; writer restarts "
                                + restarts.size() + " " + restarts + "; human " + human.done
                                + ", busy locks (failed/run) " + git.lockStats()
                                + ", anomalies " + human.anomalies.size()
                                + (faults.notes().isEmpty() ? "" : "; " + faults.notes()));
            }
        }
    }

    /** Copies the root next to daemon.log (the tmpfs it lives on is unmounted after the test). */
    private void keepRootForDiagnosis() throws Exception {
        Path copy = tmp.resolve("root-at-failure");
        new ProcessBuilder("cp", "-a", cfg.root().toString(), copy.toString())
                .inheritIO()
                .start()
                .waitFor();
        System.out.println("chaos soak: the root as it was at the failure: " + copy);
    }

    private void serve() throws Exception {
        daemon = DaemonProcess.start(cfg, tmp.resolve("daemon.log"));
        root = new RootInvariants(daemon, tmp.resolve("clones"));
    }

    private void newParts(int round) throws Exception {
        for (int a = 0; a < 2; a++) {
            parts.set(a, "soak-a" + a + "-" + round / 10);
            JsonNode r = daemon.call("write", Decl.of(Decl.createPart(parts.get(a))));
            if (!r.path("result").path("commit").isTextual()) {
                throw root.failure("round " + round + ": create_entity " + parts.get(a) + " refused: " + r);
            }
        }
    }

    /**
     * A probe write, acknowledged. A writer that stopped on a fault ({@code unavailable}, "the
     * writer has stopped") is restarted once, as an operator would, and counted.
     */
    private void probe(int round) throws Exception {
        String item = "r" + round + " probe";
        String path = "users/sam/parts/" + parts.get(0) + "/profile.md";
        String decl = Decl.of(Decl.appendItem(path, "Triggers", item));
        sent++;
        JsonNode w = daemon.call("write", decl);
        if (w.path("error").path("message").asText().contains("writer has stopped")) {
            List<String> log = daemon.logTail(400).lines().toList();
            int at = log.size() - 1;
            while (at >= 0 && !log.get(at).contains("writer failed")) {
                at--;
            }
            String why = at >= 0 && at + 1 < log.size() ? log.get(at + 1) : "(no reason logged)";
            restarts.add("round " + round + ": " + why);
            daemon.close();
            serve();
            w = daemon.call("write", decl);
        }
        if (!w.path("result").path("commit").isTextual()) {
            throw root.failure("writes do not go on once the human is done: " + w);
        }
        ackedPaths.put(item, path);
        ackedCommits.put(item, w.path("result").path("commit").asText());
    }

    /** The checks of a quiet round (writers stopped); sets {@link #lost}; returns what took how long. */
    /**
     * Whether the round's check makes a fresh clone and runs {@code git fsck --full}: in the first
     * 20 rounds (the default run), every tenth round and the last; the rounds between check a
     * clone kept up to date by fetch and git's connectivity, whose cost does not grow with the
     * history as a fresh clone's and a full fsck's do (23 s a round by round 340 of a long run).
     * What they would find stays in the repository, so the next thorough round finds it too.
     */
    static boolean thorough(int round, int rounds) {
        return round < 20 || round % 10 == 0 || round == rounds - 1;
    }

    private String checkQuietRound(int round, boolean thorough) throws Exception {
        long t0 = System.nanoTime();
        String when = "round " + round;
        if (!daemon.isAlive()) {
            throw root.failure(
                    when + ": the daemon exited with " + daemon.process().exitValue());
        }
        probe(round);
        JsonNode capture = daemon.call("capture", null);
        if (!capture.has("result")) {
            throw root.failure(when + ": capture refused: " + capture);
        }
        root.awaitMemorydFilesClean(when, 15_000);
        long quiet = System.nanoTime();
        List<String> missing = root.missing(ackedPaths, ackedCommits);
        lost = missing.size();
        if (!missing.isEmpty()) {
            throw root.failure(when + ": " + missing.size() + " of " + ackedPaths.size()
                    + " acknowledged writes lost or doubled: " + missing.subList(0, Math.min(10, missing.size())));
        }
        String notesHead = root.at("HEAD", ChaosHuman.NOTES);
        String notesTree = Files.readString(cfg.root().resolve(ChaosHuman.NOTES));
        for (String word : human.expectedWords()) {
            String line = "- " + word + "\n";
            if (notesHead == null || !notesHead.contains(line) || !notesTree.contains(line)) {
                throw root.failure(when + ": the human's saved word '" + word + "' is gone (at HEAD: "
                        + (notesHead != null && notesHead.contains(line)) + ", in the working tree: "
                        + notesTree.contains(line) + ")");
            }
        }
        human.roundChecked();
        List<String> onAgentFiles = root.humanEvents(p -> p.startsWith("users/sam/parts/soak-"));
        if (!onAgentFiles.isEmpty()) {
            throw root.failure(when + ": human edits or drift recorded on files only agents write: " + onAgentFiles);
        }
        JsonNode drift = daemon.result("drift.list", null).path("items");
        if (drift.size() > 0) {
            throw root.failure(when + ": drift items open: " + drift);
        }
        long read = System.nanoTime();
        String verified = root.assertLedgerVerifiesAndFsck(when, thorough);
        if (!human.anomalies.isEmpty()) {
            throw root.failure(
                    when + ": the human's git failed for another reason than a busy lock: " + human.anomalies);
        }
        return "quiet " + (quiet - t0) / 1_000_000 + " ms, items and events " + (read - quiet) / 1_000_000 + " ms, "
                + verified;
    }
}
