package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The repository's local exclude file, {@code .git/info/exclude}: patterns git ignores in this
 * clone alone, in a file no commit, checkout or {@code git clean} touches. memoryd keeps its own
 * local state out of humans' {@code git add -A} there, where a human's edit of {@code .gitignore}
 * cannot take it away. Lines are added once and never removed; the human's lines stay as they
 * are. The file is replaced whole (temp file and rename), so a crash leaves the old one or the new
 * one. Not thread-safe: callers serialise (the serving daemon, or {@code init} before it).
 */
public final class LocalExclude {
    private LocalExclude() {}

    /**
     * Adds each of {@code lines} the exclude file of the git directory {@code gitDir} lacks;
     * true when it added any.
     */
    public static boolean ensure(Path gitDir, String... lines) throws IOException {
        Path exclude = gitDir.resolve("info").resolve("exclude");
        String now = Files.exists(exclude) ? Files.readString(exclude, StandardCharsets.UTF_8) : "";
        List<String> missing = new ArrayList<>();
        for (String l : lines) {
            if (now.lines().noneMatch(l::equals) && !missing.contains(l)) {
                missing.add(l);
            }
        }
        if (missing.isEmpty()) {
            return false;
        }
        StringBuilder next = new StringBuilder(now);
        if (!now.isEmpty() && !now.endsWith("\n")) {
            next.append('\n');
        }
        missing.forEach(l -> next.append(l).append('\n'));
        Files.createDirectories(exclude.getParent());
        Path tmp = exclude.resolveSibling("exclude.memoryd-tmp");
        Files.writeString(tmp, next, StandardCharsets.UTF_8);
        Files.move(tmp, exclude, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return true;
    }
}
