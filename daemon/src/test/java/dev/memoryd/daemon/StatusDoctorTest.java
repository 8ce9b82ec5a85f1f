package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memoryd status} (exit 0 serving, 3 not) and {@code memoryd doctor} (each problem with the
 * command that fixes it; looking changes nothing) on real roots.
 */
class StatusDoctorTest {
    @TempDir
    Path tmp;

    TestRoot root;

    @BeforeEach
    void up() throws Exception {
        root = new TestRoot(tmp);
    }

    @AfterEach
    void down() {
        root.close();
    }

    private Cli.Run run(String... args) {
        return runWithKey(root.cfg.keyFile(), args);
    }

    private Cli.Run runWithKey(Path key, String... args) {
        List<String> full = new ArrayList<>(List.of(args));
        full.addAll(List.of("--root", root.dir.toString(), "--key-file", key.toString()));
        return Cli.run(full.toArray(String[]::new));
    }

    /** What looking must not change: HEAD, every ref, the index's bytes, git status, the state directory. */
    private String snapshot() throws Exception {
        StringBuilder s = new StringBuilder(root.git("for-each-ref"))
                .append(root.git("rev-parse", "HEAD"))
                .append(root.git("status", "--porcelain", "--ignored"));
        try (Stream<Path> st = Files.list(root.dir.resolve(".memoryd"))) {
            st.sorted().forEach(p -> s.append(p.getFileName()).append('\n'));
        }
        return s.toString();
    }

    @Test
    void status_whileADaemonServes_printsItsPidUptimeAndWriter_exitsZero() throws Exception {
        root.serve();
        Cli.Run r = run("status");
        assertEquals(0, r.code(), r.toString());
        assertTrue(
                r.out()
                        .contains("is serving " + root.dir + " (pid "
                                + ProcessHandle.current().pid() + ", up "),
                r.toString());
        assertTrue(r.out().contains("writer: ok (0 failures)"), r.toString());
        JsonNode j = TestRoot.json(run("status", "--json").out());
        assertTrue(j.get("serving").asBoolean(), j.toString());
        assertEquals(ProcessHandle.current().pid(), j.get("pid").asLong(), j.toString());
        assertEquals("ok", j.get("writer").get("state").asText(), j.toString());
        assertTrue(j.get("uptime_ms").asLong() >= 0, j.toString());
        assertEquals(
                java.util.List.of(
                        "root", "serving", "pid", "uptime_ms", "version", "branch", "head", "writer", "watcher"),
                TestRoot.keys(j));
        assertEquals(Memoryd.VERSION, j.get("version").asText(), j.toString());
        assertEquals("main", j.get("branch").asText(), j.toString());
        assertEquals(root.git("rev-parse", "HEAD").strip(), j.get("head").asText(), j.toString());
        assertEquals("{\"state\":\"ok\",\"failures\":0}", j.get("writer").toString());
        assertEquals("off", j.get("watcher").asText(), j.toString());
    }

    @Test
    void status_withNoDaemon_saysHowToStartOne_exitsThree() {
        Cli.Run r = run("status");
        assertEquals(3, r.code(), r.toString());
        assertEquals(
                "memoryd is not serving " + root.dir + " (no socket at " + root.cfg.socket()
                        + "); start one with: bin/memoryd serve --root " + root.dir + "\n",
                r.out(),
                r.toString());
    }

    @Test
    void afterADaemonWasKilled_statusAndDoctorReportTheStaleSocket_andServeReplacesIt() throws Exception {
        try (DaemonProcess d = DaemonProcess.start(root.cfg, tmp.resolve("daemon.log"), "--no-watch")) {
            d.kill();
        }
        assertTrue(Files.exists(root.cfg.socket()), "SIGKILL leaves the socket file");
        Cli.Run status = run("status", "--json");
        assertEquals(3, status.code(), status.toString());
        JsonNode j = TestRoot.json(status.out());
        assertFalse(j.get("serving").asBoolean(), j.toString());
        assertTrue(j.get("stale_socket").asBoolean(), j.toString());
        Cli.Run doctor = run("doctor");
        assertEquals(1, doctor.code(), doctor.toString());
        assertTrue(doctor.out().contains("PROBLEM  socket: " + root.cfg.socket() + " is left over"), doctor.toString());
        assertTrue(doctor.out().contains("fix: rm " + root.cfg.socket()), doctor.toString());
        root.serve();
        assertEquals(0, run("status").code());
    }

    @Test
    void doctor_onAHealthyServedRoot_findsNothing_andChangesNothing() throws Exception {
        root.serve();
        String before = snapshot();
        byte[] index = Files.readAllBytes(root.dir.resolve(".git/index"));
        Cli.Run r = run("doctor");
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().endsWith("no problem found\n"), r.toString());
        for (String check : List.of("daemon", "writer", "watcher", "key", "ledger", "fsck", "index", "locks")) {
            assertTrue(r.out().contains("ok       " + check + ": "), check + " not reported ok: " + r);
        }
        assertEquals(before, snapshot());
        assertArrayEquals(index, Files.readAllBytes(root.dir.resolve(".git/index")));
    }

    /**
     * A root where git converts memory files' line ends when it writes them into the working tree
     * ({@code core.autocrlf true}, or {@code eol=crlf} in {@code .gitattributes}) is not served:
     * {@code serve} exits 1 naming the setting and the command that ends it, and {@code doctor}
     * reports it. Before, such a root was served, and the first checkout of a file memoryd had
     * written was recorded as the human's edit of its every line (git wrote it with CRLF).
     */
    @Test
    void aRootWhereGitConvertsLineEnds_isNotServed_andDoctorSaysHowToEndIt() throws Exception {
        root.git("config", "core.autocrlf", "true");
        Path log = tmp.resolve("serve.log");
        AssertionError refused = assertThrows(
                AssertionError.class, () -> DaemonProcess.start(root.cfg, log).close());
        assertTrue(refused.getMessage().contains("daemon exited with 1"), refused.getMessage());
        assertTrue(
                refused.getMessage().contains("core.autocrlf true")
                        && refused.getMessage().contains("config core.autocrlf false"),
                refused.getMessage());
        Cli.Run d = run("doctor");
        assertTrue(d.out().contains("line ends") && d.out().contains("core.autocrlf false"), d.toString());

        root.git("config", "core.autocrlf", "false");
        Files.writeString(root.dir.resolve(".gitattributes"), "*.md text eol=crlf\n");
        root.git("add", ".gitattributes");
        root.git("commit", "-qm", "line ends for Windows");
        refused = assertThrows(
                AssertionError.class, () -> DaemonProcess.start(root.cfg, log).close());
        assertTrue(refused.getMessage().contains(".gitattributes"), refused.getMessage());

        Files.writeString(root.dir.resolve(".gitattributes"), "*.md text=auto\n");
        root.git("commit", "-qam", "line ends as they come");
        DaemonProcess served = DaemonProcess.start(root.cfg, log); // a conversion on the way in alone rewrites no file
        try {
            assertTrue(served.call("ping", null).has("result"));
        } finally {
            served.close();
        }
    }

    /**
     * A root whose git index is split ({@code core.splitIndex true}, {@code git update-index
     * --split-index}), a form JGit cannot read, is not served: {@code serve} exits 1 naming the
     * split index and the commands that make it whole, and {@code doctor} reports it. Before,
     * {@code serve} exited 1 with "memoryd: Invalid path: " and {@code doctor} found nothing.
     */
    @Test
    void aRootWithASplitIndex_isNotServed_andDoctorSaysHowToMakeItWhole() throws Exception {
        root.git("update-index", "--split-index");
        Path log = tmp.resolve("serve.log");
        AssertionError refused = assertThrows(
                AssertionError.class, () -> DaemonProcess.start(root.cfg, log).close());
        assertTrue(refused.getMessage().contains("daemon exited with 1"), refused.getMessage());
        assertTrue(
                refused.getMessage().contains("git's index is split")
                        && refused.getMessage().contains("update-index --no-split-index"),
                refused.getMessage());
        Cli.Run d = run("doctor");
        assertTrue(d.out().contains("index format") && d.out().contains("--no-split-index"), d.toString());

        root.git("update-index", "--no-split-index");
        root.git("config", "core.splitIndex", "true");
        refused = assertThrows(
                AssertionError.class, () -> DaemonProcess.start(root.cfg, log).close());
        assertTrue(refused.getMessage().contains("core.splitIndex true"), refused.getMessage());

        root.git("config", "core.splitIndex", "false");
        DaemonProcess served = DaemonProcess.start(root.cfg, log);
        try {
            assertTrue(served.call("ping", null).has("result"));
        } finally {
            served.close();
        }
        assertTrue(run("doctor").out().contains("git's index is one file memoryd reads"));
    }

    /**
     * A linked working tree of the root ({@code git worktree add}) has a {@code .git} file, not a
     * directory: {@code init}, {@code serve} and {@code doctor} each say so, name the main working
     * tree to serve instead, and change nothing. Before, {@code init} failed with "Creating
     * directories for .../.git failed", while {@code serve} and {@code doctor} said it was no memory
     * root and to run that {@code init}; the checking commands ({@code lint}, {@code read}, {@code
     * ledger verify}, {@code replay --verify}) still said so.
     */
    @Test
    void aLinkedGitWorktree_isRefusedByInitServeAndDoctor_namingTheMainTree() throws Exception {
        Path linked = tmp.resolve("linked");
        root.git("worktree", "add", "-q", linked.toString(), "-b", "exp");
        String key = root.cfg.keyFile().toString();
        String main = root.dir.toString();
        List<String> before;
        try (Stream<Path> st = Files.list(linked)) {
            before = st.map(Path::toString).sorted().toList();
        }
        Cli.Run init = Cli.run("init", "--root", linked.toString(), "--key-file", key);
        assertEquals(2, init.code(), init.toString());
        assertTrue(init.err().contains("is a linked git worktree of " + main), init.toString());
        assertTrue(init.err().contains("serve " + main), init.toString());
        Cli.Run serve = Cli.run("serve", "--root", linked.toString(), "--key-file", key);
        assertEquals(1, serve.code(), serve.toString());
        assertTrue(serve.err().contains("is a linked git worktree of " + main), serve.toString());
        Cli.Run doctor = Cli.run("doctor", "--root", linked.toString(), "--key-file", key);
        assertEquals(1, doctor.code(), doctor.toString());
        assertTrue(doctor.out().contains("linked git worktree"), doctor.toString());
        // The checking commands open the root the same way: the same reason, never "run init".
        for (String[] cmd : List.of(
                new String[] {"lint"},
                new String[] {"read", "users/sam/overview.md"},
                new String[] {"ledger", "verify"},
                new String[] {"replay", "--verify"})) {
            List<String> args = new java.util.ArrayList<>(List.of(cmd));
            args.addAll(List.of("--root", linked.toString(), "--key-file", key));
            Cli.Run r = Cli.run(args.toArray(String[]::new));
            assertTrue(r.code() != 0, r.toString());
            assertTrue(r.err().contains("is a linked git worktree of " + main), String.join(" ", cmd) + ": " + r);
            assertFalse(r.err().contains("init"), String.join(" ", cmd) + ": " + r);
        }
        try (Stream<Path> st = Files.list(linked)) {
            assertEquals(before, st.map(Path::toString).sorted().toList(), "nothing made in the linked tree");
        }
    }

    @Test
    void doctor_withAStaleIndexLock_reportsIt_withTheCommandThatRemovesIt() throws Exception {
        root.serve();
        Path lock = root.dir.resolve(".git/index.lock");
        Files.writeString(lock, "");
        Cli.Run r = run("doctor", "--json");
        assertEquals(1, r.code(), r.toString());
        JsonNode problem = only(TestRoot.json(r.out()), "locks");
        assertTrue(problem.get("message").asText().startsWith(lock + " is left over"), problem.toString());
        assertEquals(
                "rm " + lock + "   (when no git command is running)",
                problem.get("fix").asText());
        assertTrue(Files.exists(lock), "doctor leaves the lock for a person to remove");
        Files.delete(lock);
        assertEquals(0, run("doctor").code());
    }

    @Test
    void doctor_withATamperedLedgerLine_reportsWhere_andTheCheckoutThatRestoresIt() throws Exception {
        root.serve();
        root.daemon.close();
        root.daemon = null;
        Path seg;
        try (Stream<Path> s = Files.walk(root.dir.resolve("ledger"))) {
            seg = s.filter(p -> p.toString().endsWith(".ndjson"))
                    .sorted()
                    .findFirst()
                    .orElseThrow();
        }
        List<String> lines = new ArrayList<>(Files.readAllLines(seg, StandardCharsets.UTF_8));
        assertTrue(lines.size() >= 2, "the import wrote lines");
        String tampered = lines.get(1).replaceFirst("\"actor\":\"[^\"]*\"", "\"actor\":\"mallory\"");
        assertFalse(tampered.equals(lines.get(1)), lines.get(1));
        lines.set(1, tampered);
        Files.write(seg, lines, StandardCharsets.UTF_8);
        String rel = root.dir.relativize(seg).toString();
        Cli.Run r = run("doctor");
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.out().contains("PROBLEM  ledger: fails at " + rel + " line 2: "), r.toString());
        assertTrue(
                r.out().contains("git -C " + root.dir + " checkout HEAD -- " + rel + " restores the committed file"),
                r.toString());
        root.git("checkout", "HEAD", "--", rel);
        assertEquals(0, run("doctor").code());
    }

    @Test
    void doctor_withNoKeyFile_reportsIt_andCreatesNone() throws Exception {
        Path missing = tmp.resolve("elsewhere/ledger.key");
        Cli.Run r = runWithKey(missing, "doctor", "--json");
        assertEquals(1, r.code(), r.toString());
        JsonNode key = only(TestRoot.json(r.out()), "key");
        assertEquals("no key file at " + missing, key.get("message").asText());
        assertFalse(Files.exists(missing), "doctor never creates a key");
        assertFalse(Files.exists(missing.getParent()), "nor its directory");
    }

    /** The one problem finding of {@code check} in doctor's JSON. */
    private static JsonNode only(JsonNode doctor, String check) {
        List<JsonNode> found = new ArrayList<>();
        doctor.get("findings").forEach(f -> {
            if (f.get("status").asText().equals("problem")) {
                found.add(f);
            }
        });
        assertEquals(1, found.size(), doctor.toString());
        assertEquals(check, found.get(0).get("check").asText(), doctor.toString());
        return found.get(0);
    }
}
