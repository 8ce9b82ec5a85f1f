package dev.memoryd.bench;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The daemon's AOT cache for the benchmark's class path, as {@code bin/memoryd serve} starts its
 * daemon with one on JDK 25 and later ({@code memoryd-serve.aot} beside its jar): made once per
 * build by {@code ServeTraining} in a child JVM with serve's options, kept beside the bench's jar
 * ({@code memoryd-bench-serve.aot}; a cache serves only the class path it was trained with), so
 * the daemon a benchmark measures starts as serve's does. None on older JDKs, with {@code
 * MEMORYD_NO_CDS} set (to measure without), or when the benchmark runs from class directories; a
 * failed training is said on stderr and the daemon runs without. Not thread-safe: one benchmark
 * at a time makes it.
 */
final class DaemonCache {
    private static final String NAME = "memoryd-bench-serve.aot";

    private DaemonCache() {}

    /** The options that start a daemon with the cache ({@code serveOptions} its training's), made first when missing or stale. */
    static List<String> options(List<String> serveOptions) throws IOException {
        if (Runtime.version().feature() < 25 || System.getenv("MEMORYD_NO_CDS") != null) {
            return List.of();
        }
        List<Path> jars = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(e);
            if (!e.endsWith(".jar") || !Files.isRegularFile(p)) {
                return List.of(); // class directories (the module's tests): no jar to key a cache to
            }
            jars.add(p);
        }
        Path cache = benchJar().resolveSibling(NAME);
        if (stale(cache, jars) && !train(cache, serveOptions)) {
            return List.of();
        }
        return List.of("-XX:AOTCache=" + cache, "-Xlog:aot=off,cds=off");
    }

    private static boolean stale(Path cache, List<Path> jars) throws IOException {
        if (!Files.isRegularFile(cache)) {
            return true;
        }
        for (Path j : jars) {
            if (Files.getLastModifiedTime(j).compareTo(Files.getLastModifiedTime(cache)) > 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean train(Path cache, List<String> serveOptions) throws IOException {
        System.err.println("bench: preparing the daemon's AOT cache for this class path (once per build)...");
        Path tmp = cache.resolveSibling(NAME + "." + ProcessHandle.current().pid());
        Path log = cache.resolveSibling(tmp.getFileName() + ".log");
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:AOTCacheOutput=" + tmp,
                "-Xlog:aot=off,cds=off"));
        cmd.addAll(serveOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.memoryd.daemon.cli.ServeTraining"));
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(log.toFile())
                .start();
        boolean done;
        try {
            done = p.waitFor(10, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while the daemon's AOT cache was made");
        }
        if (!done) {
            p.destroyForcibly();
        }
        try {
            if (done && p.exitValue() == 0 && Files.isRegularFile(tmp)) {
                Files.move(tmp, cache, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                return true;
            }
            System.err.println("bench: no AOT cache for the daemon (its training failed): " + Files.readString(log));
            return false;
        } finally {
            Files.deleteIfExists(tmp);
            Files.deleteIfExists(log);
        }
    }

    private static Path benchJar() throws IOException {
        try {
            return Path.of(DaemonCache.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException | SecurityException e) {
            throw new IOException("cannot tell where the benchmark was loaded from", e);
        }
    }
}
