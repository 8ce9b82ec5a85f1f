package dev.memoryd.daemon.git;

import java.io.IOException;
import java.util.Map;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * Writes of refs other than the store's branch, through JGit's {@code RefUpdate}: a new branch
 * at a commit of its own (proposals) and a deleted branch's ref retired under another name. A
 * refused update is an IOException: nothing else writes these refs.
 */
final class RefWrites {
    private RefWrites() {}

    /** See {@link GitStore#retireRef}. */
    static void retireRef(Repository repo, String from, String to, ObjectId expected) throws IOException {
        RefUpdate create = repo.updateRef(to);
        create.setNewObjectId(expected);
        create.setForceUpdate(true);
        RefUpdate.Result cr = create.update();
        if (cr != RefUpdate.Result.NEW && cr != RefUpdate.Result.FORCED && cr != RefUpdate.Result.NO_CHANGE) {
            throw new IOException("cannot create " + to + ": " + cr);
        }
        RefUpdate del = repo.updateRef(from);
        del.setExpectedOldObjectId(expected);
        del.setForceUpdate(true);
        RefUpdate.Result dr = del.delete();
        if (dr != RefUpdate.Result.FORCED && dr != RefUpdate.Result.NO_CHANGE) {
            throw new IOException("cannot delete " + from + ": " + dr);
        }
    }

    /** See {@link GitStore#commitOnNewBranch}. */
    static ObjectId commitOnNewBranch(
            Repository repo,
            String ref,
            ObjectId parent,
            Map<String, byte[]> files,
            PersonIdent author,
            PersonIdent committer,
            String message)
            throws IOException {
        try (ObjectInserter ins = repo.newObjectInserter();
                RevWalk rw = new RevWalk(repo);
                ObjectReader reader = repo.newObjectReader()) {
            DirCache dc = DirCache.newInCore();
            DirCacheBuilder b = dc.builder();
            if (parent != null) {
                b.addTree(new byte[0], 0, reader, rw.parseCommit(parent).getTree());
            }
            b.finish();
            DirCacheEditor ed = dc.editor();
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                ObjectId blob = ins.insert(Constants.OBJ_BLOB, f.getValue());
                ed.add(new DirCacheEditor.PathEdit(f.getKey()) {
                    @Override
                    public void apply(DirCacheEntry ent) {
                        if (ent.getFileMode() != FileMode.EXECUTABLE_FILE) {
                            ent.setFileMode(FileMode.REGULAR_FILE);
                        }
                        ent.setObjectId(blob);
                    }
                });
            }
            ed.finish();
            CommitBuilder cb = new CommitBuilder();
            cb.setTreeId(dc.writeTree(ins));
            if (parent != null) {
                cb.setParentId(parent);
            }
            cb.setAuthor(author);
            cb.setCommitter(committer);
            cb.setMessage(message);
            ObjectId c = ins.insert(cb);
            ins.flush();
            RefUpdate ru = repo.updateRef(Constants.R_HEADS + ref);
            ru.setNewObjectId(c);
            ru.setExpectedOldObjectId(ObjectId.zeroId());
            RefUpdate.Result r = ru.update();
            if (r != RefUpdate.Result.NEW) {
                throw new IOException("cannot create branch " + ref + ": " + r);
            }
            return c;
        }
    }
}
