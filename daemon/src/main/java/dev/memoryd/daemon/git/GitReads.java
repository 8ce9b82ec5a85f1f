package dev.memoryd.daemon.git;

import dev.memoryd.grammar.RepoPath;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.revwalk.filter.RevFilter;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * Reads of the repository at any commit: files, trees, history between commits, branches and
 * trailers. They change nothing and may come from any thread; {@link GitStore} offers them under
 * the same names.
 */
final class GitReads {
    private final Repository repo;

    GitReads(Repository repo) {
        this.repo = repo;
    }

    SortedMap<String, ObjectId> branches() throws IOException {
        SortedMap<String, ObjectId> out = new TreeMap<>();
        for (Ref r : repo.getRefDatabase().getRefsByPrefix(Constants.R_HEADS)) {
            if (r.getObjectId() != null) {
                out.put(r.getName().substring(Constants.R_HEADS.length()), r.getObjectId());
            }
        }
        return out;
    }

    Optional<ObjectId> branchHead(String name) throws IOException {
        Ref r = repo.getRefDatabase().exactRef(Constants.R_HEADS + name);
        return r == null ? Optional.empty() : Optional.ofNullable(r.getObjectId());
    }

    Optional<ObjectId> mergeBase(ObjectId a, ObjectId b) throws IOException {
        try (RevWalk rw = new RevWalk(repo)) {
            rw.setRevFilter(RevFilter.MERGE_BASE);
            rw.markStart(rw.parseCommit(a));
            rw.markStart(rw.parseCommit(b));
            RevCommit base = rw.next();
            return Optional.ofNullable(base == null ? null : base.copy());
        }
    }

    boolean isAncestor(ObjectId ancestor, ObjectId commit) throws IOException {
        if (ancestor == null) {
            return true;
        }
        try (RevWalk rw = new RevWalk(repo)) {
            return rw.isMergedInto(rw.parseCommit(ancestor), rw.parseCommit(commit));
        }
    }

    List<String> changedPaths(ObjectId from, ObjectId to, Predicate<String> keep) throws IOException {
        List<String> out = new ArrayList<>();
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = new TreeWalk(repo)) {
            if (from == null) {
                tw.addTree(new EmptyTreeIterator());
            } else {
                tw.addTree(rw.parseCommit(from).getTree());
            }
            tw.addTree(rw.parseCommit(to).getTree());
            tw.setRecursive(true);
            tw.setFilter(TreeFilter.ANY_DIFF);
            while (tw.next()) {
                if (keep.test(tw.getPathString())) {
                    out.add(tw.getPathString());
                }
            }
        }
        return out;
    }

    List<GitStore.CommitInfo> commitsBetween(ObjectId from, ObjectId to, int max) throws IOException {
        List<GitStore.CommitInfo> out = new ArrayList<>();
        try (RevWalk rw = new RevWalk(repo)) {
            rw.markStart(rw.parseCommit(to));
            if (from != null) {
                rw.markUninteresting(rw.parseCommit(from));
            }
            for (RevCommit c : rw) {
                out.add(new GitStore.CommitInfo(
                        c.copy(), c.getAuthorIdent(), c.getCommitterIdent(), c.getShortMessage()));
                if (out.size() >= max) {
                    break;
                }
            }
        }
        return out;
    }

    List<ObjectId> workBeyond(ObjectId base, ObjectId tip, int max) throws IOException {
        if (isAncestor(tip, base)) {
            return List.of();
        }
        Optional<ObjectId> mb = mergeBase(base, tip);
        if (mb.isPresent()
                && changedPaths(mb.get(), tip, p -> !p.startsWith("ledger/")).isEmpty()) {
            return List.of();
        }
        List<ObjectId> out = new ArrayList<>();
        for (GitStore.CommitInfo c : commitsBetween(base, tip, max)) {
            out.add(c.id());
        }
        return out;
    }

    List<String> listFiles(ObjectId commit, String dir) throws IOException {
        List<String> out = new ArrayList<>();
        if (commit == null) {
            return out;
        }
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = new TreeWalk(repo)) {
            tw.addTree(rw.parseCommit(commit).getTree());
            tw.setRecursive(true);
            if (dir != null) {
                tw.setFilter(PathFilter.create(dir));
            }
            while (tw.next()) {
                out.add(tw.getPathString());
            }
        }
        return out;
    }

    Optional<byte[]> read(ObjectId commit, String path) throws IOException {
        if (commit == null) {
            return Optional.empty();
        }
        try (RevWalk rw = new RevWalk(repo);
                ObjectReader reader = repo.newObjectReader()) {
            RevCommit c = rw.parseCommit(commit);
            try (TreeWalk tw = TreeWalk.forPath(reader, path, c.getTree())) {
                if (tw == null || tw.getFileMode(0) == FileMode.TREE) {
                    return Optional.empty();
                }
                return Optional.of(reader.open(tw.getObjectId(0)).getBytes());
            }
        }
    }

    Map<String, ObjectId> blobIds(ObjectId commit, java.util.Collection<String> paths) throws IOException {
        Map<String, ObjectId> out = new java.util.LinkedHashMap<>();
        if (commit == null || paths.isEmpty()) {
            return out;
        }
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = new TreeWalk(repo)) {
            tw.addTree(rw.parseCommit(commit).getTree());
            tw.setRecursive(true);
            tw.setFilter(org.eclipse.jgit.treewalk.filter.PathFilterGroup.createFromStrings(paths));
            while (tw.next()) {
                if (tw.getFileMode(0).getObjectType() == Constants.OBJ_BLOB) {
                    out.put(tw.getPathString(), tw.getObjectId(0));
                }
            }
        }
        return out;
    }

    Optional<ObjectId> resolve(String rev) {
        if (!nameable(rev)) {
            return Optional.empty();
        }
        try {
            ObjectId id = repo.resolve(rev + "^{commit}");
            return Optional.ofNullable(id);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * False for a revision with a {@code /}-separated part longer than a file name may be: no ref
     * or commit is named so, and JGit, asked to find one, logs a SEVERE stack trace for each ref
     * directory it tries ("File name too long"), so any client could fill the daemon's log.
     */
    private static boolean nameable(String rev) {
        for (String part : rev.split("/", -1)) {
            if (part.getBytes(StandardCharsets.UTF_8).length > RepoPath.MAX_SEGMENT_BYTES) {
                return false;
            }
        }
        return true;
    }

    List<Map.Entry<String, String>> trailers(ObjectId commit) throws IOException {
        try (RevWalk rw = new RevWalk(repo)) {
            return parseTrailers(rw.parseCommit(commit).getFullMessage());
        }
    }

    static List<Map.Entry<String, String>> parseTrailers(String message) {
        String[] paras = message.strip().split("\n\n");
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (String line : paras[paras.length - 1].split("\n")) {
            int c = line.indexOf(": ");
            if (c > 0 && line.substring(0, c).matches("[A-Za-z][A-Za-z0-9-]*")) {
                out.add(Map.entry(line.substring(0, c), line.substring(c + 2)));
            }
        }
        return out;
    }
}
