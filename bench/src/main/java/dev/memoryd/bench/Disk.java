package dev.memoryd.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The disk chores around a run: settling write-back before measuring, sizes, removing what a run made. */
final class Disk {
    private Disk() {}

    /**
     * Flushes other dirty pages (earlier runs, the prefill) before measuring: on a shared disk,
     * background write-back otherwise lands inside our fsyncs and runs stop being comparable.
     */
    static void settle() throws IOException, InterruptedException {
        new ProcessBuilder("sync").inheritIO().start().waitFor(60, TimeUnit.SECONDS);
    }

    /** Bytes in the regular files under {@code p}. */
    static long size(Path p) throws IOException {
        try (var s = Files.walk(p)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(f -> f.toFile().length())
                    .sum();
        }
    }

    /**
     * Removes what a run made in a temp dir: every entry of {@code parent} named {@code prefix}...
     * (the root, its key, logs, the floor's files, a second root, a remote). Best effort: a file
     * vanishing mid-walk (the daemon's last writes) must not cost the run its result.
     */
    static void deleteTree(Path parent, String prefix) {
        try (var s = Files.list(parent)) {
            for (Path p :
                    (Iterable<Path>) s.filter(f -> f.getFileName().toString().startsWith(prefix))::iterator) {
                try (var w = Files.walk(p)) {
                    w.sorted(java.util.Comparator.reverseOrder())
                            .forEach(f -> f.toFile().delete());
                } catch (IOException | java.io.UncheckedIOException e) {
                    System.err.println("bench: could not remove all of " + p + ": " + e);
                }
            }
        } catch (IOException e) {
            System.err.println("bench: could not list " + parent + ": " + e);
        }
    }
}
