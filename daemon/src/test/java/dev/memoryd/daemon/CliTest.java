package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.daemon.app.Daemon;
import dev.memoryd.daemon.cli.Main;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliTest {
    @TempDir
    Path tmp;

    TestRoot root;
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream oldOut;
    PrintStream oldErr;
    InputStream oldIn;

    @BeforeEach
    void up() throws Exception {
        root = new TestRoot(tmp);
        oldOut = System.out;
        oldErr = System.err;
        oldIn = System.in;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void down() {
        System.setOut(oldOut);
        System.setErr(oldErr);
        System.setIn(oldIn);
        root.close();
    }

    private int run(String... args) {
        return Main.run(root.cliArgs(args));
    }

    @Test
    void readAndLintAndVerify_workWithoutDaemon() {
        assertEquals(0, run("read", "users/sam/overview.md", "--section", "Identity"));
        assertEquals(0, run("lint"), err.toString());
        assertTrue(out.toString().contains("lint clean"));
        assertEquals(0, run("ledger", "verify"), err.toString());
    }

    @Test
    void lint_findsProblems_exitsOne() throws Exception {
        Path f = root.dir.resolve("users/sam/overview.md");
        Files.writeString(f, Files.readString(f).replace("<!-- @anchor: identity v1 -->", ""));
        assertEquals(1, run("lint", "users/sam/overview.md"));
        assertTrue(out.toString().contains("anchor-missing"), out.toString());
    }

    /**
     * A memory file that is not UTF-8 is a lint finding naming the file and the byte, and the other
     * files are linted too; {@code read} of it says the same. Before, both ended with "Input length
     * = 1" and linted nothing.
     */
    @Test
    void lint_ofAFileThatIsNotUtf8_isAFindingNamingTheByte_andTheOthersAreLinted() throws Exception {
        Path f = root.dir.resolve("users/sam/overview.md");
        byte[] good = Files.readAllBytes(f);
        byte[] bad = java.util.Arrays.copyOf(good, good.length + 1);
        bad[good.length] = (byte) 0xE9; // a Latin-1 e-acute at the end
        Files.write(f, bad);
        Path other = root.dir.resolve("users/sam/parts/young-one/profile.md");
        Files.writeString(other, Files.readString(other).replace("<!-- @anchor: role v1 -->", ""));
        assertEquals(1, run("lint"));
        assertTrue(
                out.toString()
                        .contains("users/sam/overview.md:1: not-utf8: users/sam/overview.md is not valid UTF-8 (byte "
                                + good.length + ")"),
                out.toString());
        assertTrue(
                out.toString().contains("young-one/profile.md")
                        && out.toString().contains("anchor-missing"),
                "the other files are linted too: " + out);
        assertEquals(1, run("read", "users/sam/overview.md"));
        assertTrue(err.toString().contains("is not valid UTF-8 (byte " + good.length + ")"), err.toString());
    }

    @Test
    void write_withoutDaemon_saysHowToStartOne() {
        System.setIn(new ByteArrayInputStream("{\"ops\":[]}".getBytes()));
        assertEquals(1, run("write"));
        assertTrue(err.toString().contains("bin/memoryd serve --root " + root.dir), err.toString());
    }

    @Test
    void write_malformedJson_isUsageError() throws Exception {
        root.serve();
        System.setIn(new ByteArrayInputStream("{nope".getBytes()));
        assertEquals(2, run("write"));
    }

    @Test
    void malformedJsonGivenToACommand_saysWhereAndWhatWasExpected_inOneLine() throws Exception {
        root.serve();
        System.setIn(new ByteArrayInputStream("{\"ops\": [\n  {\"op\": \"append_item\"}\n".getBytes()));
        assertEquals(2, run("write"));
        String msg = err.toString().strip();
        assertTrue(msg.startsWith("memoryd: the declaration is not valid JSON at line 3, column 1: "), msg);
        assertTrue(msg.contains("expected close marker for Array (start marker at line 1, column 9)"), msg);
        assertTrue(!msg.contains("REDACTED") && !msg.contains("Source") && !msg.contains("\n"), msg);
        err.reset();
        assertEquals(2, run("slices", "append-row", "notes", "{\"_meta\": {\"id\": 1,}}"));
        msg = err.toString().strip();
        assertTrue(msg.startsWith("memoryd: the row is not valid JSON at line 1, column "), msg);
        assertTrue(!msg.contains("REDACTED") && !msg.contains("Source"), msg);
    }

    @Test
    void write_throughDaemon_exitsZero_andRefusalExitsOne() throws Exception {
        root.serve();
        System.setIn(new ByteArrayInputStream(("{\"rationale\":\"cli\",\"ops\":[{\"op\":\"append_item\",\"path\":"
                        + "\"users/sam/overview.md\",\"section\":\"Active Themes\",\"item\":\"Rest without guilt\"}]}")
                .getBytes()));
        assertEquals(0, run("write"), err.toString());
        assertTrue(root.file("users/sam/overview.md").contains("- Rest without guilt\n"));
        System.setIn(new ByteArrayInputStream(("{\"rationale\":\"cli\",\"ops\":[{\"op\":\"append_item\",\"path\":"
                        + "\"users/sam/overview.md\",\"section\":\"Nope\",\"item\":\"x\"}]}")
                .getBytes()));
        assertEquals(1, run("write"));
        assertTrue(err.toString().contains("unknown_section"), err.toString());
    }

    /** The JSON's escape reached the socket as "?" (what UTF-8 makes of a lone surrogate) and was written. */
    @Test
    void write_ofALoneSurrogate_isRefusedNamingTheField_andWritesNothing() throws Exception {
        root.serve();
        String before = root.file("users/sam/overview.md");
        System.setIn(new ByteArrayInputStream(("{\"rationale\":\"cli\",\"ops\":[{\"op\":\"append_item\",\"path\":"
                        + "\"users/sam/overview.md\",\"section\":\"Active Themes\",\"item\":\"x \\ud800 y\"}]}")
                .getBytes(StandardCharsets.UTF_8)));
        assertEquals(1, run("write"), err.toString());
        assertTrue(err.toString().contains("invalid_request"), err.toString());
        assertTrue(err.toString().contains("params.ops[0].item"), err.toString());
        assertEquals(before, root.file("users/sam/overview.md"));
    }

    /**
     * Bytes that are not UTF-8 reached the daemon as U+FFFD and were written (stdin), or ended in
     * "Input length = 1" (a file); now each is a usage error naming the byte, and nothing is sent.
     */
    @Test
    void inputThatIsNotUtf8_isAUsageErrorNamingTheByte_andNothingIsSent() throws Exception {
        root.serve();
        String before = root.file("users/sam/overview.md");
        byte[] decl = ("{\"rationale\":\"cli\",\"ops\":[{\"op\":\"append_item\",\"path\":"
                        + "\"users/sam/overview.md\",\"section\":\"Active Themes\",\"item\":\"raw \u00ff bytes\"}]}")
                .getBytes(StandardCharsets.ISO_8859_1);
        int at = new String(decl, StandardCharsets.ISO_8859_1).indexOf('\u00ff');
        System.setIn(new ByteArrayInputStream(decl));
        assertEquals(2, run("write"), err.toString());
        assertTrue(err.toString().contains("stdin) is not UTF-8 text: byte " + at), err.toString());
        Path file = tmp.resolve("decl.json");
        Files.write(file, decl);
        err.reset();
        assertEquals(2, run("write", "--file", file.toString()), err.toString());
        assertTrue(err.toString().contains(file + ") is not UTF-8 text: byte " + at), err.toString());
        assertEquals(before, root.file("users/sam/overview.md"));

        err.reset();
        System.setIn(new ByteArrayInputStream(
                "[{\"id\":\"t1\",\"role\":\"user\",\"text\":\"\u00ff\"}]".getBytes(StandardCharsets.ISO_8859_1)));
        assertEquals(2, run("conversation", "append", "s1"), err.toString());
        assertTrue(err.toString().contains("the turns (stdin) is not UTF-8"), err.toString());
    }

    @Test
    void declarationsAndResolutionsThatAreNotJsonOrNotTheirShape_areUsageErrorsSayingWhat() throws Exception {
        root.serve();
        System.setIn(new ByteArrayInputStream("{\"chunks\":[]".getBytes(StandardCharsets.UTF_8)));
        assertEquals(2, run("declare"), err.toString());
        assertTrue(err.toString().contains("the declaration is not valid JSON at line 1"), err.toString());
        assertFalse(err.toString().contains("REDACTED"), err.toString());

        err.reset();
        System.setIn(new ByteArrayInputStream("{}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(2, run("branch", "merge", "exp", "--resolutions", "-"), err.toString());
        assertTrue(err.toString().contains("the resolutions must be a JSON array"), err.toString());
        assertFalse(err.toString().contains("cannot be cast"), err.toString());
    }

    @Test
    void secondServe_onSameRoot_refusesAndNamesHolder() throws Exception {
        root.serve();
        Daemon.AlreadyServing e = assertThrows(Daemon.AlreadyServing.class, () -> Daemon.start(root.cfg));
        assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid()), e.getMessage());
    }

    @Test
    void slicesList_halfLifeIsConfigurable() throws Exception {
        root.serve();
        String id = root.call(
                        "slices.create",
                        "{\"slice\":{\"title\":\"Log\",\"summary\":\"S.\",\"body\":{\"type\":\"jsonl\"}}}")
                .get("result")
                .get("id")
                .asText();
        String sixtyDaysAgo = java.time.Instant.now()
                .minus(java.time.Duration.ofDays(60))
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .toString();
        assertTrue(root.call(
                        "append_row",
                        "{\"id\":\"" + id + "\",\"row\":{\"_meta\":{\"id\":\"r\",\"created_at\":\"" + sixtyDaysAgo
                                + "\"}}}")
                .has("result"));
        root.daemon.close();
        root.daemon = null;
        assertEquals(0, run("slices", "list"));
        String line =
                out.toString().lines().filter(l -> l.startsWith(id)).findFirst().orElseThrow();
        assertTrue(line.contains("[FRESH - 2 months ago]"), line);
        out.reset();
        assertEquals(0, run("slices", "list", "--half-life-days", "30"));
        line = out.toString().lines().filter(l -> l.startsWith(id)).findFirst().orElseThrow();
        assertTrue(line.contains("[STALE - 2 months ago]"), line);
    }

    @Test
    void unknownCommand_isUsageError() {
        assertEquals(2, Main.run("frobnicate"));
    }

    @Test
    void replayVerify_withoutDaemon_exitsZeroWhenClean_andOneNamingTheSection() throws Exception {
        root.serve(); // records the example import
        root.daemon.close();
        root.daemon = null;
        assertEquals(0, run("replay", "--verify"), err.toString());
        assertTrue(out.toString().contains("replay ok"), out.toString());
        String f = "users/sam/parts/inner-critic/profile.md";
        Files.writeString(root.dir.resolve(f), root.file(f).replace("strict teacher", "strict, unrecorded teacher"));
        out.reset();
        assertEquals(1, run("replay", "--verify"));
        assertTrue(out.toString().contains("DIFFERS " + f) && out.toString().contains("identity"), out.toString());
    }

    @Test
    void replay_needsExactlyOneMode_usageErrorOtherwise() {
        assertEquals(2, run("replay"));
        assertEquals(2, run("replay", "--verify", "--onto-latest"));
    }

    @Test
    void drift_listExitsOneWhileOpen_resolveValidatesReanchor_proposalsUnknownIsOne() throws Exception {
        root.serve();
        String f = "users/sam/parts/inner-critic/profile.md";
        Files.writeString(root.dir.resolve(f), root.file(f).replace("## Role\n", "## Job\n"));
        root.call("capture", null);
        assertEquals(1, run("drift", "list"));
        String id = root.firstDriftId();
        assertEquals(2, run("drift", "resolve", id, "--reanchor", "JobRole"));
        assertEquals(2, run("drift", "resolve", id), "a resolution is required");
        assertEquals(0, run("drift", "resolve", id, "--reanchor", "Job=Role", "--note", "renamed back"));
        assertEquals(0, run("drift", "list"));
        assertTrue(out.toString().contains("no drift"), out.toString());
        assertEquals(1, run("proposals", "accept", "nope"));
        assertTrue(err.toString().contains("not_found"), err.toString());
    }

    @Test
    void init_withAnExampleTreeThatIsNotThere_isAUsageErrorNamingIt_andCreatesNothing() {
        Path fresh = tmp.resolve("fresh-root");
        Path key = tmp.resolve("fresh-key/ledger.key");
        Path nowhere = tmp.resolve("no-such-users");
        assertEquals(
                2,
                Main.run(
                        "init",
                        "--root",
                        fresh.toString(),
                        "--key-file",
                        key.toString(),
                        "--example",
                        nowhere.toString()));
        assertTrue(err.toString().startsWith("memoryd: --example " + nowhere + ": no such directory"), err.toString());
        assertEquals(1, err.toString().lines().count(), err.toString());
        assertTrue(!Files.exists(fresh) && !Files.exists(key.getParent()), "init did something before refusing");
    }

    @Test
    void clone_intoANonEmptyRoot_isAUsageError_andSyncWithoutADaemonSaysHowToStartOne() throws Exception {
        assertEquals(2, run("clone", tmp.resolve("nowhere.git").toString()));
        assertTrue(err.toString().contains("not empty"), err.toString());
        assertEquals(1, run("sync", "--remote", "origin"));
        assertTrue(err.toString().contains("serve"), err.toString());
    }

    @Test
    void clone_makesAReplicaRoot_thatServesItsOwnChain() throws Exception {
        Path remote = TestRoot.bareRemote(tmp.resolve("remote.git"));
        root.git("push", "-q", remote.toString(), "main");
        Path clone = tmp.resolve("clone");
        assertEquals(0, Main.run(new String[] {
            "clone",
            remote.toString(),
            "--replica",
            "laptop",
            "--root",
            clone.toString(),
            "--key-file",
            root.cfg.keyFile().toString()
        }));
        assertTrue(out.toString().contains("replica id laptop"), out.toString());
        try (TestRoot c = TestRoot.existing(clone, root.cfg.keyFile()).serveAsIs()) {
            assertTrue(c.git("config", "memoryd.replica").strip().equals("laptop"));
            // The pushed root was never served: nothing upstream is recorded, so the clone imports the
            // files itself (as a first root does at its start) instead of forking from an empty lineage.
            c.importExample();
            assertTrue(Files.exists(clone.resolve("ledger/main@laptop/0000/00000000.ndjson")));
            assertTrue(c.git("show", "main:ledger/main@laptop/0000/00000000.ndjson")
                    .contains("human_edit"));
        }
        String[] offline = {
            "--root", clone.toString(), "--key-file", root.cfg.keyFile().toString()
        };
        assertEquals(0, Main.run(concat(new String[] {"ledger", "verify"}, offline)), err.toString());
        assertEquals(0, Main.run(concat(new String[] {"replay", "--verify"}, offline)), err.toString() + out);
        assertEquals(2, Main.run(new String[] {
            "clone",
            remote.toString(),
            "--replica",
            "Bad_Id",
            "--root",
            tmp.resolve("clone2").toString(),
            "--key-file",
            root.cfg.keyFile().toString()
        }));
    }

    @Test
    void commandsOtherThanInitAndServe_neverCreateAKey_andThoseNeedingOneNameTheMissingFileAndExitTwo()
            throws Exception {
        root.serve(); // a ledger signed with the real key
        root.daemon.close();
        root.daemon = null;
        Path missing = tmp.resolve("elsewhere/memoryd/ledger.key");
        String[] where = {"--root", root.dir.toString(), "--key-file", missing.toString()};
        // Reading a file and linting need no key: they work and do not touch it.
        assertEquals(0, Main.run(concat(new String[] {"lint"}, where)), err.toString());
        assertEquals(
                0,
                Main.run(concat(new String[] {"read", "users/sam/overview.md", "--section", "Identity"}, where)),
                err.toString());
        assertEquals(0, Main.run(concat(new String[] {"slices", "list"}, where)), err.toString());
        for (String[] cmd : new String[][] {
            {"ledger", "verify"},
            {"replay", "--verify"},
            {"replay", "--onto-latest"},
            {"read", "users/sam/overview.md", "--json"}
        }) {
            err.reset();
            assertEquals(2, Main.run(concat(cmd, where)), String.join(" ", cmd) + ": " + err);
            assertTrue(err.toString().startsWith("memoryd: no ledger key file at " + missing + ":"), err.toString());
            assertEquals(1, err.toString().lines().count(), err.toString());
        }
        // Through a daemon, the client never reads a key either.
        assertEquals(1, Main.run(concat(new String[] {"drift", "list"}, where)));
        assertTrue(!Files.exists(missing) && !Files.exists(missing.getParent()), "a key or its directory was created");
        assertEquals(0, run("ledger", "verify"), err.toString());
    }

    @Test
    void serve_createsTheKeyFileWhenThereIsNone() throws Exception {
        Path fresh = tmp.resolve("fresh/ledger.key");
        Process p = CrashSafetyTest.start(MemorydConfig.defaults(root.dir, fresh));
        try {
            assertTrue(Files.exists(fresh));
        } finally {
            p.destroy();
            p.waitFor();
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
