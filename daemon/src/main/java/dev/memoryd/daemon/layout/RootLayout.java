package dev.memoryd.daemon.layout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Which files of a memory root are memoryd's content, in one place: memory files (markdown under
 * {@code users/}) and chunk files ({@code .slices/*.slice}). Every other part of memoryd (the
 * writer, the watcher, search, slices, the chunk graph, replay, lint) asks here, so the rule
 * cannot differ between them.
 *
 * <p>A name that starts with a dot below the top directory (an editor's backup or swap copy, a
 * hidden folder) is never content. Paths are repository-relative with {@code /} separators.
 * Stateless; the disk walks follow no symbolic link.
 */
public final class RootLayout {
    /** The directory holding memory files. */
    public static final String USERS = "users";
    /** The directory holding chunk files. */
    public static final String SLICES = ".slices";
    /**
     * What git must never take into a commit: the state directory ({@code .memoryd/}: socket, lock,
     * ledger journal, spare files holding copies of memory files) and temp files beside memory
     * files. In the root's {@code .gitignore} and its local exclude file, as gitignore patterns.
     */
    public static final java.util.List<String> LOCAL_STATE = java.util.List.of(".memoryd/", "*.memoryd-tmp");

    private RootLayout() {}

    /** A memory file: {@code users/**.md}, no hidden name. */
    public static boolean isMemoryFile(String p) {
        return under(p, USERS) && p.endsWith(".md");
    }

    /** {@link #isMemoryFile(String)} of a checked path. */
    public static boolean isMemoryFile(dev.memoryd.grammar.RepoPath p) {
        return isMemoryFile(p.value());
    }

    /** A chunk file: {@code .slices/**.slice}, no hidden name below {@code .slices/}. */
    public static boolean isChunkFile(String p) {
        return under(p, SLICES) && p.endsWith(".slice");
    }

    /** Either kind of content: what search indexes, slices are read from and replay compares. */
    public static boolean isContentFile(String p) {
        return isMemoryFile(p) || isChunkFile(p);
    }

    private static boolean under(String p, String top) {
        return p.startsWith(top + "/") && p.indexOf("/.", top.length()) < 0;
    }

    /** The memory files on disk under {@code root}, in path order. */
    public static List<String> memoryFilesOnDisk(Path root) throws IOException {
        return onDisk(root, RootLayout::isMemoryFile, f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * The symbolic links under {@code root} at paths a memory file would have, in path order: never
     * followed, and never memory files; {@code lint} reports them.
     */
    public static List<String> memoryLinksOnDisk(Path root) throws IOException {
        return onDisk(root, RootLayout::isMemoryFile, Files::isSymbolicLink);
    }

    /** The content files on disk under {@code root}, in path order. */
    public static List<String> contentFilesOnDisk(Path root) throws IOException {
        return onDisk(root, RootLayout::isContentFile, f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS));
    }

    private static List<String> onDisk(Path root, Predicate<String> rule, Predicate<Path> kind) throws IOException {
        List<String> out = new ArrayList<>();
        for (String top : new String[] {USERS, SLICES}) {
            Path d = root.resolve(top);
            if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try (Stream<Path> s = Files.walk(d)) {
                s.filter(kind)
                        .map(f -> root.relativize(f).toString().replace('\\', '/'))
                        .filter(rule)
                        .forEach(out::add);
            }
        }
        out.sort(null);
        return out;
    }
}
