package dev.memoryd.daemon.layout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A directory that is a linked working tree of another repository ({@code git worktree add}):
 * its {@code .git} is a file naming the git directory it shares. memoryd keeps its lock, its
 * index and its ledger beside a repository's own git directory and serves the main working tree
 * only, so such a directory is refused by {@code init}, {@code serve} and {@code doctor} with the
 * way on, instead of a root "not found" that {@code init} could not make. Immutable.
 *
 * @param root the linked working tree
 * @param gitDir the git directory its {@code .git} file names
 */
public record LinkedWorktree(Path root, Path gitDir) {
    /** {@code root} as a linked working tree, when its {@code .git} is a file naming a git directory. */
    public static Optional<LinkedWorktree> of(Path root) throws IOException {
        Path dotGit = root.resolve(".git");
        if (!Files.isRegularFile(dotGit, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        String line = Files.readString(dotGit, StandardCharsets.UTF_8).strip();
        if (!line.startsWith("gitdir:")) {
            return Optional.empty();
        }
        Path dir = Path.of(line.substring("gitdir:".length()).strip());
        return Optional.of(new LinkedWorktree(
                root, dir.isAbsolute() ? dir : root.resolve(dir).normalize()));
    }

    /**
     * The main working tree of the repository, when the git directory is where {@code git
     * worktree add} puts it ({@code <main>/.git/worktrees/<name>}); else the git directory itself.
     */
    public Path main() {
        Path worktrees = gitDir.getParent();
        if (worktrees != null
                && worktrees.getFileName() != null
                && worktrees.getFileName().toString().equals("worktrees")
                && worktrees.getParent() != null
                && worktrees.getParent().getFileName() != null
                && worktrees.getParent().getFileName().toString().equals(".git")
                && worktrees.getParent().getParent() != null) {
            return worktrees.getParent().getParent();
        }
        return gitDir;
    }

    /** Why the directory is not a memory root, and the ways on. */
    public String refusal() {
        return root + " is a linked git worktree of " + main() + " (its .git is a file naming " + gitDir
                + "); memoryd serves a repository's main working tree only, and nothing was changed: serve "
                + main() + " (another of its branches with --branch), or make a root of its own with"
                + " bin/memoryd clone " + main() + " --root DIR";
    }
}
