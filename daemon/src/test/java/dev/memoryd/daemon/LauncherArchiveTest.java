package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.daemon.cli.Main;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/memoryd} and its class-data archive: built on first use next to the jar and then
 * used; rebuilt when the jar is newer; and a file the JVM refuses is passed over in silence. The
 * launcher runs from a copy of the checkout's layout, its jar made from this test's class path.
 */
class LauncherArchiveTest {
    static final String PREPARING = "memoryd: preparing the class-data archive for fast starts (once per build)...";

    @TempDir
    Path tmp;

    record Run(int code, String out, String err) {}

    @Test
    void missingArchive_isBuilt_thenUsed_stale_isRebuilt_refused_isIgnoredSilently() throws Exception {
        Path home = tmp.resolve("checkout");
        Path jar = layout(home);
        // JDK 24 and later: an AOT cache; before, a dynamic archive (the launcher picks by the java it runs).
        Path archive = jar.resolveSibling(Runtime.version().feature() >= 24 ? "memoryd.aot" : "memoryd.jsa");
        TestRoot root = new TestRoot(tmp);
        String[] read = {
            "read",
            "users/sam/overview.md",
            "--section",
            "Identity",
            "--root",
            root.dir.toString(),
            "--key-file",
            root.cfg.keyFile().toString()
        };
        String identity = root.file("users/sam/overview.md").contains("Sam is a fictional example user")
                ? "Sam is a fictional example user"
                : null;
        assertTrue(identity != null, "the example tree");

        Run first = launch(home, Map.of(), read); // no archive yet
        assertEquals(0, first.code(), first.toString());
        assertTrue(first.out().startsWith(identity), first.toString());
        assertEquals(PREPARING + "\n", first.err(), first.toString());
        assertTrue(Files.size(archive) > 0, "the archive is next to the jar");

        Run used =
                launch(home, Map.of("MEMORYD_JAVA_OPTS", "-Xlog:class+load:file=" + tmp.resolve("classes.log")), read);
        assertEquals(0, used.code(), used.toString());
        assertEquals("", used.err(), used.toString());
        assertTrue(used.out().startsWith(identity), used.toString());
        try (Stream<String> lines = Files.lines(tmp.resolve("classes.log"))) {
            assertTrue(
                    lines.anyMatch(l -> l.contains("dev.memoryd.daemon.cli.Main source: shared objects file")),
                    "Main came from the archive");
        }

        long now = System.currentTimeMillis(); // a new build: the jar newer than its archive
        Files.setLastModifiedTime(archive, FileTime.fromMillis(now - 60_000));
        Files.setLastModifiedTime(jar, FileTime.fromMillis(now - 30_000));
        Run stale = launch(home, Map.of(), read);
        assertEquals(0, stale.code(), stale.toString());
        assertEquals(PREPARING + "\n", stale.err(), "a jar newer than its archive gets a new one");
        assertTrue(Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) >= 0);

        // The jar's time changed (as a copy or checkout makes it) but stays older than the archive: the
        // launcher keeps the archive, and the JVM, which checks the jar's time, refuses it.
        Files.setLastModifiedTime(
                jar, FileTime.fromMillis(Files.getLastModifiedTime(archive).toMillis() - 60_000));
        Run refused = launch(home, Map.of(), read);
        assertEquals(0, refused.code(), refused.toString());
        assertTrue(refused.out().startsWith(identity), refused.toString());
        assertEquals("", refused.err(), "refused in silence");

        Files.write(archive, new byte[64 * 1024]); // not an archive at all
        Run garbage = launch(home, Map.of(), read);
        assertEquals(0, garbage.code(), garbage.toString());
        assertTrue(garbage.out().startsWith(identity), garbage.toString());
        assertEquals("", garbage.err(), "refused in silence");

        Files.delete(archive);
        Run off = launch(home, Map.of("MEMORYD_NO_CDS", "1"), read);
        assertEquals(0, off.code(), off.toString());
        assertEquals("", off.err(), off.toString());
        assertFalse(Files.exists(archive), "MEMORYD_NO_CDS neither builds nor uses one");
    }

    /**
     * The checkout's layout under {@code home}: {@code bin/memoryd} and serve's JVM options copied, and as
     * {@code daemon/target/memoryd.jar} a jar of memoryd's classes whose manifest names the
     * dependency jars (class-data sharing archives classes from jars only, not directories).
     */
    static Path layout(Path home) throws IOException {
        Path bin = Files.createDirectories(home.resolve("bin"));
        Path launcher = Path.of("..", "bin", "memoryd").toAbsolutePath().normalize();
        Files.copy(launcher, bin.resolve("memoryd"));
        Files.copy(launcher.resolveSibling("serve-jvm.options"), bin.resolve("serve-jvm.options"));
        assertTrue(bin.resolve("memoryd").toFile().setExecutable(true));
        Path target = Files.createDirectories(home.resolve("daemon/target"));
        Path classes = target.resolve("memoryd-classes.jar");
        List<String> classPath = new ArrayList<>();
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(classes))) {
            for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
                Path p = Path.of(e);
                if (Files.isDirectory(p) && !p.endsWith("test-classes")) {
                    addTree(out, p);
                } else if (e.endsWith(".jar")) {
                    classPath.add(p.toUri().toString());
                }
            }
        }
        classPath.add(0, classes.getFileName().toString());
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Main.class.getName());
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", classPath));
        Path jar = target.resolve("memoryd.jar");
        try (OutputStream o = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(o, m)) {
            // the manifest is the whole jar
        }
        return jar;
    }

    private static void addTree(JarOutputStream out, Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path f : s.filter(Files::isRegularFile).sorted().toList()) {
                String name = dir.relativize(f).toString().replace(File.separatorChar, '/');
                if (name.startsWith("META-INF/MANIFEST")) {
                    continue;
                }
                try {
                    out.putNextEntry(new JarEntry(name));
                } catch (java.util.zip.ZipException duplicate) {
                    continue; // the same resource in two modules: the first wins, as on the class path
                }
                Files.copy(f, out);
                out.closeEntry();
            }
        }
    }

    private Run launch(Path home, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/memoryd").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("MEMORYD_JAVA_OPTS");
        pb.environment().remove("MEMORYD_NO_CDS");
        pb.environment().putAll(env);
        // the launcher runs the java on PATH: make it this test's
        pb.environment()
                .put(
                        "PATH",
                        Path.of(System.getProperty("java.home"), "bin") + File.pathSeparator + System.getenv("PATH"));
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the launcher did not finish");
        return new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
