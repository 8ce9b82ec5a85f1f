package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * {@code bin/memoryd} builds the jar when the sources are newer, one build at a time: commands
 * started together on a stale checkout (a {@code serve} and a {@code ping} right after a pull)
 * run one Maven between them, and all of them then run. The checkout's layout is {@link
 * LauncherArchiveTest#layout}'s; {@code mvn} is a stand-in on the PATH that records each build,
 * takes a second, freshens the jar and fails if another build is running.
 */
class LauncherBuildTest {
    @TempDir
    Path tmp;

    @Test
    void commandsStartedTogetherOnAStaleCheckout_runOneBuild_andAllRun() throws Exception {
        Path home = tmp.resolve("checkout");
        Path jar = LauncherArchiveTest.layout(home);
        Path pom = home.resolve("pom.xml");
        Files.writeString(pom, "<project/>\n");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        Path log = tmp.resolve("builds.log");
        Path fakeBin = Files.createDirectories(tmp.resolve("fake-bin"));
        Path mvn = fakeBin.resolve("mvn");
        Files.writeString(mvn, """
                #!/bin/sh
                if ! mkdir "$BUILDS_LOG.running" 2>/dev/null; then
                  echo "beside another build" >> "$BUILDS_LOG"
                  exit 1
                fi
                echo "build in $(pwd)" >> "$BUILDS_LOG"
                sleep 1
                touch daemon/target/memoryd.jar
                rmdir "$BUILDS_LOG.running"
                """);
        assertTrue(mvn.toFile().setExecutable(true));

        List<Process> launched = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/memoryd").toString(), "--version");
            pb.environment().put("BUILDS_LOG", log.toString());
            pb.environment().put("MEMORYD_NO_CDS", "1");
            pb.environment().remove("MEMORYD_JAVA_OPTS");
            pb.environment()
                    .put(
                            "PATH",
                            fakeBin
                                    + File.pathSeparator
                                    + Path.of(System.getProperty("java.home"), "bin")
                                    + File.pathSeparator
                                    + System.getenv("PATH"));
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
}
