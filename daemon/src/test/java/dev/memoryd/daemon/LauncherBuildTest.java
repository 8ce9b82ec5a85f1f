package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/memoryd} builds the jar when the sources are newer: one build at a time (commands
 * started together on a stale checkout, a {@code serve} and a {@code ping} right after a pull, run
 * one Maven between them, and all of them then run), Maven's output kept out of the command's
 * stdout and stderr when the build succeeds and shown whole when it fails. The checkout's layout is
 * {@link LauncherArchiveTest#layout}'s; {@code mvn} is a stand-in on the PATH.
 */
class LauncherBuildTest {
    static final String BUILDING = "memoryd: building (first use or sources changed)...";

    @TempDir
    Path tmp;

    record Run(int code, String out, String err) {}

    @Test
    void commandsStartedTogetherOnAStaleCheckout_runOneBuild_andAllRun() throws Exception {
        Path home = staleCheckout();
        Path log = tmp.resolve("builds.log");
        // Records each build, takes a second, freshens the jar and fails if another build is running.
        fakeMaven("""
                if ! mkdir "$BUILDS_LOG.running" 2>/dev/null; then
                  echo "beside another build" >> "$BUILDS_LOG"
                  exit 1
                fi
                echo "build in $(pwd)" >> "$BUILDS_LOG"
                sleep 1
                touch daemon/target/memoryd.jar
                rmdir "$BUILDS_LOG.running"
                """);

        List<Process> launched = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ProcessBuilder pb = launcher(home, "--version");
            pb.environment().put("BUILDS_LOG", log.toString());
            launched.add(pb.redirectErrorStream(true)
                    .redirectOutput(tmp.resolve("out-" + i + ".txt").toFile())
                    .start());
        }
        for (int i = 0; i < launched.size(); i++) {
            Process p = launched.get(i);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "launcher " + i + " did not finish");
            String out = Files.readString(tmp.resolve("out-" + i + ".txt"), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("memoryd "), "it ran after the build: " + out);
        }
        assertEquals(List.of("build in " + home.toRealPath()), Files.readAllLines(log), "one build, never two at once");
    }

    @Test
    void aBuildThatSucceeds_printsOneLineOnStderr_andNothingOfMavensOnStdout() throws Exception {
        Path home = staleCheckout();
        // As Maven 3.8 does with -q -B: colour resets on stdout.
        fakeMaven("printf '\\033[0m\\033[0m'\necho '[INFO] packaging'\ntouch daemon/target/memoryd.jar\n");

        Run run = run(home, "--help");

        assertEquals(0, run.code(), run.toString());
        assertFalse(run.out().contains("\u001b"), "no escape sequence on stdout: " + run);
        assertTrue(run.out().startsWith("Usage: memoryd"), run.toString());
        assertEquals(BUILDING + "\n", run.err(), run.toString());
        assertTrue(Files.readString(home.resolve("target/build.log")).contains("[INFO] packaging"), "kept in the log");
    }

    @Test
    void aBuildThatFails_showsMavensOutput_andExitsWithoutRunningTheCommand() throws Exception {
        Path home = staleCheckout();
        fakeMaven("echo '[ERROR] COMPILATION ERROR : cannot find symbol'\nexit 1\n");

        Run run = run(home, "--help");

        assertNotEquals(0, run.code(), run.toString());
        assertEquals("", run.out(), "the command did not run: " + run);
        assertTrue(
                run.err().startsWith(BUILDING + "\n[ERROR] COMPILATION ERROR : cannot find symbol\n"), run.toString());
        assertTrue(
                run.err().contains("the build failed; its output is in " + home.resolve("target/build.log")),
                run.toString());
    }

    /** A checkout whose pom is newer than its jar, so the launcher builds before it runs. */
    private Path staleCheckout() throws Exception {
        Path home = tmp.resolve("checkout");
        Path jar = LauncherArchiveTest.layout(home);
        Files.writeString(home.resolve("pom.xml"), "<project/>\n");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        return home;
    }

    private void fakeMaven(String body) throws Exception {
        Path mvn = Files.createDirectories(tmp.resolve("fake-bin")).resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\n" + body);
        assertTrue(mvn.toFile().setExecutable(true));
    }

    /** The launcher with the stand-in Maven and this test's java first on the PATH. */
    private ProcessBuilder launcher(Path home, String... args) {
        List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/memoryd").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("MEMORYD_NO_CDS", "1");
        pb.environment().remove("MEMORYD_JAVA_OPTS");
        pb.environment()
                .put(
                        "PATH",
                        tmp.resolve("fake-bin")
                                + File.pathSeparator
                                + Path.of(System.getProperty("java.home"), "bin")
                                + File.pathSeparator
                                + System.getenv("PATH"));
        return pb;
    }

    private Run run(Path home, String... args) throws Exception {
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        Process p = launcher(home, args)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the launcher did not finish");
        return new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
