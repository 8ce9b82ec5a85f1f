package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.SocketClient;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/memoryd serve} on JDK 25 and later: the daemon's own AOT cache, trained by a daemon
 * serving agents' writes, is built next to the jar on the first serve and used from then on (the
 * serving JVM maps it), and the daemon started with it serves writes. Runs the launcher with the
 * newest JDK installed beside the default one (the machine's Temurin 25), from a copy of the
 * checkout's layout as {@link LauncherArchiveTest} does.
 */
class LauncherServeCacheTest {
    static final String PREPARING =
            "memoryd: preparing the daemon's AOT cache for fast writes from the start (once per build, about 20 s)...";

    @TempDir
    Path tmp;

    /** The {@code bin} directory of a JDK 25 or later under {@code /usr/lib/jvm}. */
    static Path jdk25() throws IOException {
        Path jvms = Path.of("/usr/lib/jvm");
        try (Stream<Path> s = Files.isDirectory(jvms) ? Files.list(jvms) : Stream.empty()) {
            Optional<Path> found = s.filter(d -> feature(d) >= 25)
                    .map(d -> d.resolve("bin"))
                    .sorted()
                    .findFirst();
            return found.orElseThrow(() -> new AssertionError(
                    "no JDK 25 or later under /usr/lib/jvm: the machine has a Temurin 25 beside the default JDK"));
        }
    }

    private static int feature(Path jdk) {
        Path release = jdk.resolve("release");
        try {
            for (String l : Files.readAllLines(release)) {
                if (l.startsWith("JAVA_VERSION=")) {
                    String v = l.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Integer.parseInt(v.split("[.+-]")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0; // not a JDK
        }
        return 0;
    }

    @Test
    void theFirstServe_buildsTheDaemonsCache_andEveryServeRunsWithIt() throws Exception {
        Path home = tmp.resolve("checkout");
        Path jar = LauncherArchiveTest.layout(home);
        Path cache = jar.resolveSibling("memoryd-serve.aot");
        TestRoot root = new TestRoot(tmp);

        String first = serveAndWrite(home, root, cache, "first");
        assertTrue(first.startsWith(PREPARING + "\n"), first);
        assertTrue(Files.size(cache) > 0, "the cache is next to the jar");

        long built = Files.getLastModifiedTime(cache).toMillis();
        String second = serveAndWrite(home, root, cache, "second");
        assertTrue(!second.contains("preparing"), "built once: " + second);
        assertEquals(built, Files.getLastModifiedTime(cache).toMillis(), "not built again");
        assertTrue(root.file("users/sam/parts/inner-critic/profile.md").contains("trained daemon, second start"));
    }

    /**
     * Serves the root with the launcher, checks that the daemon maps {@code cache} and writes an
     * item as an agent, stops it; the launcher's stderr.
     */
    private String serveAndWrite(Path home, TestRoot root, Path cache, String name) throws Exception {
        Served d = serve(home, root, name + ".err");
        try {
            assertTrue(d.maps(cache), "the daemon maps its cache (" + name + " start)");
            JsonNode r = d.write("trained daemon, " + name + " start");
            assertTrue(r.path("result").path("commit").isTextual(), r::toString);
        } finally {
            d.stop();
        }
        return Files.readString(tmp.resolve(name + ".err"));
    }

    record Served(Process p, SocketClient c) {
        boolean maps(Path cache) throws IOException {
            return Files.readString(Path.of("/proc", String.valueOf(p.pid()), "maps"))
                    .contains(cache.toString());
        }

        JsonNode write(String item) throws IOException {
            return c.call(
                    "write",
                    dev.memoryd.daemon.rpc.JsonRpc.MAPPER.readTree(
                            Decl.of(Decl.appendItem("users/sam/parts/inner-critic/profile.md", "Triggers", item))));
        }

        void stop() throws InterruptedException {
            try {
                c.close();
            } catch (IOException e) {
                // the daemon goes anyway
            }
            p.destroy(); // the launcher execs the JVM: SIGTERM reaches the daemon
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the daemon stopped");
        }
    }

    /** {@code bin/memoryd serve} on the root with JDK 25's java first on PATH; returns once it answers. */
    private Served serve(Path home, TestRoot root, String err) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of(
                home.resolve("bin/memoryd").toString(),
                "serve",
                "--root",
                root.dir.toString(),
                "--key-file",
                root.cfg.keyFile().toString()));
        pb.environment().remove("MEMORYD_JAVA_OPTS");
        pb.environment().remove("MEMORYD_NO_CDS");
        pb.environment().put("PATH", jdk25() + File.pathSeparator + System.getenv("PATH"));
        Process p = pb.redirectOutput(tmp.resolve("serve.out").toFile())
                .redirectError(tmp.resolve(err).toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240); // the training, on a loaded machine
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new AssertionError("serve exited " + p.exitValue() + ": "
                        + Files.readString(tmp.resolve(err), StandardCharsets.UTF_8));
            }
            if (Files.exists(root.cfg.socket())) {
                try {
                    SocketClient c = SocketClient.connect(root.cfg.socket());
                    if (c.call("ping", null).has("result")) {
                        return new Served(p, c);
                    }
                    c.close();
                } catch (IOException e) {
                    // not up yet
                }
            }
            Thread.sleep(100);
        }
        p.destroyForcibly();
        throw new AssertionError("serve did not answer within 240 s");
    }
}
