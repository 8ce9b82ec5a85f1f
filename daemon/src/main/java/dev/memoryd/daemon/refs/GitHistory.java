package dev.memoryd.daemon.refs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.diff.RenameDetector;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.PathFilterGroup;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * Read-only questions to one local Git repository about files pinned at a commit: where a path
 * stands at HEAD, and what happened to it since a pin (changed, renamed, deleted) with the commits
 * that touched it. HEAD is resolved once, when this is opened, so one reconcile sees one state of
 * the repository even while someone commits to it. Not thread-safe; open one per call.
 *
 * <p>Renames are followed forward from the pinned name: the newest commit that touched a path
 * missing at HEAD is the one that removed it, and JGit's {@link RenameDetector} over that commit's
 * diff tells whether it moved (then the walk continues on the new name). JGit's {@code
 * FollowFilter} cannot do this: it follows a path backwards from the name it has at HEAD, which is
 * exactly what a reconcile does not know.
 */
final class GitHistory implements AutoCloseable {
    /** Commits listed per finding; older ones are counted, not listed. */
    static final int MAX_COMMITS = 50;
    /** Renames followed in a row before a reference counts as deleted. */
    private static final int MAX_HOPS = 16;

    enum Kind {
        UNCHANGED,
        CHANGED,
        RENAMED,
        DELETED
    }

    /** A commit as drift items show it. */
    record Commit(String id, String author, String date, String subject) {}

    /**
     * What happened to a pinned file: {@code path} is its name at HEAD (the pinned one unless
     * renamed; null when deleted), {@code blob} its blob there; commits newest first.
     */
    record Finding(Kind kind, String path, ObjectId blob, List<Commit> commits, int commitsTotal) {}

    private final Repository repo;
    private final ObjectId head;

    private GitHistory(Repository repo) throws IOException {
        this.repo = repo;
        this.head = repo.resolve(Constants.HEAD);
    }

    /**
     * Opens the repository whose work tree (or bare directory) is {@code dir}; null when there is
     * none there. A directory inside some other repository's work tree is not that repository.
     */
    static GitHistory open(Path dir) throws IOException {
        Path gitDir = dir.resolve(".git");
        if (!Files.isDirectory(gitDir)) {
            if (!Files.isRegularFile(dir.resolve("HEAD")) || !Files.isDirectory(dir.resolve("objects"))) {
                return null;
            }
            gitDir = dir; // a bare repository
        }
        return new GitHistory(new FileRepositoryBuilder()
                .setGitDir(gitDir.toFile())
                .setMustExist(true)
                .build());
    }

    /** HEAD's commit; null when the repository has none yet. */
    ObjectId head() {
        return head;
    }

    /** The id of the entry at {@code path} in HEAD and its mode; null when there is none. */
    Entry entryAtHead(String path) throws IOException {
        if (head == null) {
            return null;
        }
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = TreeWalk.forPath(repo, path, rw.parseCommit(head).getTree())) {
            return tw == null ? null : new Entry(tw.getObjectId(0), tw.getFileMode(0));
        }
    }

    record Entry(ObjectId id, FileMode mode) {
        boolean isFile() {
            return mode == FileMode.REGULAR_FILE || mode == FileMode.EXECUTABLE_FILE || mode == FileMode.SYMLINK;
        }
    }

    /** Blob ids of the given paths at HEAD, in one walk of HEAD's tree; absent paths are left out. */
    Map<String, ObjectId> blobsAtHead(Collection<String> paths) throws IOException {
        Map<String, ObjectId> out = new HashMap<>();
        if (head == null || paths.isEmpty()) {
            return out;
        }
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = new TreeWalk(repo)) {
            tw.addTree(rw.parseCommit(head).getTree());
            tw.setRecursive(true);
            tw.setFilter(PathFilterGroup.createFromStrings(paths));
            while (tw.next()) {
                if ((tw.getRawMode(0) & FileMode.TYPE_MASK) != FileMode.TYPE_TREE) {
                    out.put(tw.getPathString(), tw.getObjectId(0));
                }
            }
        }
        return out;
    }

    /** {@code sha256:<hex>} and size of a blob's bytes (the pointer's {@code payload.hash} and {@code size}). */
    record Digest(String sha256, long size) {}

    Digest digest(ObjectId blob) throws IOException {
        ObjectLoader l = repo.open(blob, Constants.OBJ_BLOB);
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
        try (InputStream in = l.openStream()) {
            byte[] buf = new byte[64 * 1024];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
        }
        return new Digest("sha256:" + HexFormat.of().formatHex(md.digest()), l.getSize());
    }

    /** The blob's bytes (for a diff of a changed reference); null when it is too big to show. */
    byte[] bytes(ObjectId blob, int max) throws IOException {
        ObjectLoader l = repo.open(blob, Constants.OBJ_BLOB);
        return l.getSize() > max ? null : l.getCachedBytes(max);
    }

    /**
     * What happened since {@code pinnedCommit} to the file pinned at {@code path} with blob
     * {@code pinnedBlob}, given its blob at HEAD ({@code blobAtHead}, null when the path is gone).
     * A file whose blob at HEAD is the pinned one is unchanged, even if commits in between touched
     * it and put it back: the reference still points at the same bytes.
     */
    Finding reconcile(String path, ObjectId pinnedCommit, ObjectId pinnedBlob, ObjectId blobAtHead) throws IOException {
        if (pinnedBlob.equals(blobAtHead)) {
            return new Finding(Kind.UNCHANGED, path, blobAtHead, List.of(), 0);
        }
        try (RevWalk rw = new RevWalk(repo)) {
            ObjectId from = exists(rw, pinnedCommit) ? pinnedCommit : null;
            if (blobAtHead != null) {
                List<RevCommit> touched = touching(path, from);
                return finding(Kind.CHANGED, path, blobAtHead, List.of(touched));
            }
            // Gone under the pinned name: follow it forward through renames.
            List<List<RevCommit>> hops = new ArrayList<>();
            String cur = path;
            for (int hop = 0; hop < MAX_HOPS; hop++) {
                List<RevCommit> touched = touching(cur, from);
                hops.add(0, touched); // later hops hold newer commits
                if (hop > 0) {
                    ObjectId now = blobsAtHead(List.of(cur)).get(cur);
                    if (now != null) {
                        return finding(Kind.RENAMED, cur, now, hops);
                    }
                }
                if (touched.isEmpty()) {
                    break;
                }
                RevCommit removal = touched.get(0); // the newest commit touching a path absent at HEAD removed it
                String next = renamedIn(rw, removal, cur);
                if (next == null) {
                    break;
                }
                cur = next;
                from = removal;
            }
            return finding(Kind.DELETED, null, null, hops);
        }
    }

    private boolean exists(RevWalk rw, ObjectId commit) throws IOException {
        try {
            rw.parseCommit(commit);
            return true;
        } catch (MissingObjectException e) {
            return false; // history was rewritten and the pin collected: walk what HEAD has
        }
    }

    private static Finding finding(Kind kind, String path, ObjectId blob, List<List<RevCommit>> hops) {
        Map<ObjectId, Commit> all = new LinkedHashMap<>();
        for (List<RevCommit> h : hops) {
            for (RevCommit c : h) {
                all.computeIfAbsent(
                        c.copy(),
                        k -> new Commit(
                                c.name(),
                                c.getAuthorIdent().getName() + " <"
                                        + c.getAuthorIdent().getEmailAddress() + ">",
                                c.getAuthorIdent().getWhenAsInstant().toString(),
                                c.getShortMessage()));
            }
        }
        List<Commit> listed = new ArrayList<>(all.values());
        int total = listed.size();
        return new Finding(kind, path, blob, List.copyOf(listed.subList(0, Math.min(total, MAX_COMMITS))), total);
    }

    /** Commits reachable from HEAD but not from {@code from} whose tree differs at {@code path}, newest first. */
    private List<RevCommit> touching(String path, ObjectId from) throws IOException {
        List<RevCommit> out = new ArrayList<>();
        try (RevWalk rw = new RevWalk(repo)) {
            rw.setTreeFilter(AndTreeFilter.create(PathFilter.create(path), TreeFilter.ANY_DIFF));
            rw.markStart(rw.parseCommit(head));
            if (from != null) {
                rw.markUninteresting(rw.parseCommit(from));
            }
            for (RevCommit c : rw) {
                out.add(c);
                if (out.size() > 10 * MAX_COMMITS) {
                    break; // enough to name the newest and show that there were many
                }
            }
        }
        return out;
    }

    /** The new name of {@code path} if {@code commit} renamed it (against its first parent); else null. */
    private String renamedIn(RevWalk rw, RevCommit commit, String path) throws IOException {
        if (commit.getParentCount() == 0) {
            return null;
        }
        RevCommit parent = rw.parseCommit(commit.getParent(0));
        try (TreeWalk tw = new TreeWalk(repo)) {
            tw.setRecursive(true);
            tw.addTree(parent.getTree());
            tw.addTree(rw.parseCommit(commit).getTree());
            tw.setFilter(TreeFilter.ANY_DIFF);
            RenameDetector rd = new RenameDetector(repo);
            rd.addAll(DiffEntry.scan(tw));
            for (DiffEntry d : rd.compute()) {
                if (d.getChangeType() == DiffEntry.ChangeType.RENAME
                        && d.getOldPath().equals(path)) {
                    return d.getNewPath();
                }
            }
        }
        return null;
    }

    @Override
    public void close() {
        repo.close();
    }
}
