package dev.memoryd.daemon.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Git lock files ({@code .git/index.lock}, {@code HEAD.lock}, {@code packed-refs.lock}, a ref's
 * {@code .lock}) that stay: git and memoryd hold such a lock for milliseconds, so one still there,
 * unchanged, after {@link #SETTLE_MS} is left over from a process that died holding it, and blocks
 * every git command (and memoryd's writes) until removed.
 */
final class StaleLocks {
    static final long SETTLE_MS = 1_000;

    private StaleLocks() {}

    /** The lock files under {@code gitDir} present now and still present, unchanged, a moment later. */
    static List<Path> find(Path gitDir) throws IOException {
        List<Seen> first = scan(gitDir);
        if (first.isEmpty()) {
            return List.of();
        }
        try {
            Thread.sleep(SETTLE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while looking at lock files", e);
        }
        List<Seen> second = scan(gitDir);
        List<Path> stale = new ArrayList<>();
        for (Seen s : first) {
            if (second.contains(s)) {
                stale.add(s.path());
            }
        }
        return stale;
    }

    /** A lock file as seen once: a lock taken again in between is a new file (another key or time). */
    private record Seen(Path path, Object key, long modifiedMs) {}

    private static List<Seen> scan(Path gitDir) throws IOException {
        List<Path> candidates = new ArrayList<>();
        for (String top : List.of("index.lock", "HEAD.lock", "packed-refs.lock", "config.lock")) {
            candidates.add(gitDir.resolve(top));
        }
        Path refs = gitDir.resolve("refs");
        if (Files.isDirectory(refs)) {
            try (Stream<Path> s = Files.walk(refs)) {
                s.filter(p -> p.getFileName().toString().endsWith(".lock")).forEach(candidates::add);
            }
        }
        List<Seen> seen = new ArrayList<>();
        for (Path p : candidates) {
            try {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                seen.add(new Seen(
                        p,
                        Objects.requireNonNullElse(a.fileKey(), p),
                        a.lastModifiedTime().toMillis()));
            } catch (java.nio.file.NoSuchFileException gone) {
                // not there (or released while we looked): not stale
            }
        }
        return seen;
    }
}
