package dev.memoryd.daemon.git;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ReflogEntry;
import org.eclipse.jgit.lib.ReflogReader;
import org.eclipse.jgit.lib.Repository;

/**
 * A repository made by a plain {@code git clone} of a root, without a replica id: served as it
 * is, a daemon would append to the same ledger chains as the root it came from, and the two would
 * fork for good at their first lines. Told by HEAD's oldest reflog entry ("clone: from URL", which
 * git and JGit both write). A clone whose reflog was expired cannot be told from the root it came
 * from. Callers ask only before a root's first serve: a clone a daemon already served has written
 * the chains it has, and keeps them.
 *
 * <p>Reads only; immutable.
 *
 * @param from the URL the clone was made from, as its reflog says
 */
public record PlainClone(String from) {
    static final String CLONE_PREFIX = "clone: from ";

    public PlainClone {
        if (from == null || from.isBlank()) {
            throw new IllegalArgumentException("a clone names where it came from");
        }
    }

    /**
     * The clone {@code repo} is, if it is a plain clone without a replica id; empty for every other
     * repository.
     */
    public static Optional<PlainClone> of(Repository repo) throws IOException {
        String replica = repo.getConfig().getString("memoryd", null, "replica");
        if (replica != null && !replica.isEmpty()) {
            return Optional.empty();
        }
        ReflogReader log = repo.getReflogReader(Constants.HEAD);
        List<ReflogEntry> entries = log == null ? List.of() : log.getReverseEntries();
        if (entries.isEmpty()) {
            return Optional.empty();
        }
        String first = entries.get(entries.size() - 1).getComment().strip();
        if (!first.startsWith(CLONE_PREFIX) || first.length() == CLONE_PREFIX.length()) {
            return Optional.empty();
        }
        return Optional.of(new PlainClone(first.substring(CLONE_PREFIX.length())));
    }
}
