package dev.memoryd.daemon.sync;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.RepositoryCache;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.transport.URIish;
import org.eclipse.jgit.util.FS;

/**
 * The branch a remote on this machine has checked out in a working tree, which a push must not
 * move. Git refuses such a push ({@code receive.denyCurrentBranch}, {@code refuse} by default):
 * the ref would move under a working tree and index that still hold the old commit, and whoever
 * works there (a daemon serving that root, or a person) would take the old files for an edit
 * that undoes the push. JGit pushes to a path or {@code file://} remote in-process and does not
 * make that check, so this class does, reading the remote's own setting: {@code ignore},
 * {@code warn} or {@code false} let the push through, as they do for git; anything else
 * ({@code updateInstead} included, which would need the remote's working tree updated) refuses.
 *
 * @param workTree the remote's working tree
 * @param branch the branch checked out there, without {@code refs/heads/}
 */
record CheckedOutRemote(Path workTree, String branch) {
    /**
     * The branch {@code url} (a remote's push URL) has checked out and refuses to have moved, or
     * empty: a URL of another machine, a bare repository, a detached HEAD, or a remote that allows
     * such pushes. {@code base} resolves a relative path.
     */
    static Optional<CheckedOutRemote> of(String url, Path base) throws IOException {
        if (url == null) {
            return Optional.empty();
        }
        URIish uri;
        try {
            uri = new URIish(url);
        } catch (URISyntaxException e) {
            return Optional.empty(); // JGit's push reports what it cannot reach
        }
        boolean local = uri.getHost() == null && (uri.getScheme() == null || "file".equals(uri.getScheme()));
        if (!local || uri.getPath() == null) {
            return Optional.empty();
        }
        File dir = base.resolve(uri.getPath()).toFile();
        File gitDir = RepositoryCache.FileKey.resolve(dir, FS.DETECTED);
        if (gitDir == null) {
            return Optional.empty();
        }
        try (Repository r =
                new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build()) {
            if (r.isBare()) {
                return Optional.empty();
            }
            Ref head = r.exactRef(Constants.HEAD);
            if (head == null
                    || !head.isSymbolic()
                    || !head.getTarget().getName().startsWith(Constants.R_HEADS)) {
                return Optional.empty();
            }
            String deny = r.getConfig().getString("receive", null, "denycurrentbranch");
            if (deny != null) {
                String d = deny.toLowerCase(Locale.ROOT);
                if (d.equals("ignore") || d.equals("warn") || d.equals("false")) {
                    return Optional.empty();
                }
            }
            return Optional.of(new CheckedOutRemote(
                    r.getWorkTree().toPath(), head.getTarget().getName().substring(Constants.R_HEADS.length())));
        }
    }

    /** Why a push of {@link #branch} is refused, and what to do instead. */
    String refusal() {
        return "the remote's " + branch + " is checked out in the working tree " + workTree
                + " (a root memoryd serves, or a clone someone works in), and a push would move it under"
                + " files that still hold the commit before: git refuses such a push and so does memoryd."
                + " Sync from that root instead (git -C " + workTree + " remote add <name> <this root>, then"
                + " bin/memoryd sync --root " + workTree + " --remote <name>), or meet at a bare repository";
    }
}
