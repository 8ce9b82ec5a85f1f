package dev.memoryd.daemon.git;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * Which files one commit's tree holds, and which changed between two commits' trees, by path:
 * what a client that mirrors the file list (an MCP server's resources) needs to stay current
 * without reading the repository itself. Reads only; safe from any thread.
 */
public final class TreeChanges {
    /** How a path differs from the older tree to the newer. */
    public enum Kind {
        ADDED,
        MODIFIED,
        REMOVED;

        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One changed path. */
    public record Change(String path, Kind kind) {}

    /** The files of one commit (null: no commit yet). */
    public record Listing(String commit, List<String> paths) {}

    /** The files changed from commit {@code since} to commit {@code head}. */
    public record Delta(String since, String head, List<Change> changes) {}

    private TreeChanges() {}

    /** The paths of {@code commit}'s tree that {@code keep} accepts, in path order; none for a null commit. */
    public static List<String> files(Repository repo, ObjectId commit, Predicate<String> keep) throws IOException {
        List<String> out = new ArrayList<>();
        if (commit == null) {
            return out;
        }
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = new TreeWalk(repo)) {
            tw.addTree(rw.parseCommit(commit).getTree());
            tw.setRecursive(true);
            while (tw.next()) {
                if (keep.test(tw.getPathString())) {
                    out.add(tw.getPathString());
                }
            }
        }
        return out;
    }

    /**
     * The paths {@code keep} accepts whose blob (or mode) differs between {@code from}'s tree and
     * {@code to}'s, in path order. The two commits need not be related: a branch moved back or
     * sideways gives the difference between the trees all the same.
     */
    public static List<Change> between(Repository repo, ObjectId from, ObjectId to, Predicate<String> keep)
            throws IOException {
        List<Change> out = new ArrayList<>();
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = new TreeWalk(repo)) {
            tw.addTree(rw.parseCommit(from).getTree());
            if (to == null) {
                tw.addTree(new EmptyTreeIterator());
            } else {
                tw.addTree(rw.parseCommit(to).getTree());
            }
            tw.setRecursive(true);
            tw.setFilter(TreeFilter.ANY_DIFF);
            while (tw.next()) {
                String p = tw.getPathString();
                if (!keep.test(p)) {
                    continue;
                }
                boolean before = !tw.getObjectId(0).equals(ObjectId.zeroId());
                boolean after = !tw.getObjectId(1).equals(ObjectId.zeroId());
                out.add(new Change(p, !before ? Kind.ADDED : !after ? Kind.REMOVED : Kind.MODIFIED));
            }
        }
        return out;
    }
}
