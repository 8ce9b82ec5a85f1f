package dev.memoryd.ledger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * On-disk layout: {@code <ledgerDir>/<branch>/<group>/<segment>.ndjson}, segment index
 * s = (seq-1)/segmentLines, file {@code %08d.ndjson} of s, group {@code %04d} of s/256.
 * A chain is identified by its segment files, so a branch path component that happens to look
 * like a group directory stays unambiguous. Stateless, thread-safe.
 */
final class Layout {
    static final int SEGMENTS_PER_GROUP = 256;
    private static final Pattern SEGMENT = Pattern.compile("(\\d{8})\\.ndjson");
    private static final Pattern GROUP = Pattern.compile("\\d{4}");

    private Layout() {}

    static Path chainDir(Path ledgerDir, BranchName branch) {
        Path p = ledgerDir;
        for (String c : branch.value().split("/")) {
            p = p.resolve(c);
        }
        return p;
    }

    static Path segmentFile(Path chainDir, long segment) {
        return chainDir.resolve(zeroPad(segment / SEGMENTS_PER_GROUP, 4)).resolve(zeroPad(segment, 8) + ".ndjson");
    }

    /** {@code String.format("%0<width>d", v)} for v >= 0, without the formatter (this is on every append's path). */
    static String zeroPad(long v, int width) {
        String s = Long.toString(v);
        return s.length() >= width ? s : "0".repeat(width - s.length()) + s;
    }

    /** {@code file} relative to the memory root (ledgerDir's parent), {@code /}-separated. */
    static String relative(Path ledgerDir, Path file) {
        Path root = ledgerDir.toAbsolutePath().normalize().getParent();
        Path rel = root.relativize(file.toAbsolutePath().normalize());
        List<String> parts = new ArrayList<>();
        rel.forEach(p -> parts.add(p.toString()));
        return String.join("/", parts);
    }

    /** Every chain under {@code ledgerDir}: branch → (segment index → file), both ordered. */
    static Map<BranchName, TreeMap<Long, Path>> discover(Path ledgerDir, List<String> skipped) {
        Map<BranchName, TreeMap<Long, Path>> chains = new TreeMap<>();
        if (!Files.isDirectory(ledgerDir)) {
            return chains;
        }
        try (Stream<Path> files = Files.walk(ledgerDir)) {
            files.filter(Files::isRegularFile).forEach(f -> {
                Matcher m = SEGMENT.matcher(f.getFileName().toString());
                Path group = f.getParent();
                if (!m.matches()
                        || group == null
                        || !GROUP.matcher(group.getFileName().toString()).matches()) {
                    return;
                }
                Path chainDir = group.getParent();
                if (chainDir == null || chainDir.equals(ledgerDir)) {
                    return;
                }
                List<String> parts = new ArrayList<>();
                ledgerDir.relativize(chainDir).forEach(p -> parts.add(p.toString()));
                BranchName b;
                try {
                    b = new BranchName(String.join("/", parts));
                } catch (IllegalArgumentException e) {
                    skipped.add("ignored " + f + ": " + e.getMessage());
                    return;
                }
                chains.computeIfAbsent(b, k -> new TreeMap<>()).put(Long.parseLong(m.group(1)), f);
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list ledger directory " + ledgerDir, e);
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException("cannot list ledger directory " + ledgerDir, e.getCause());
        }
        return chains;
    }

    /** fsync a directory so entries created or removed in it survive a crash (Linux semantics). */
    static void fsyncDir(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
