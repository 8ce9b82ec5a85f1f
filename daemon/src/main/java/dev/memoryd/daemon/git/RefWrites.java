package dev.memoryd.daemon.git;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
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
 *
 * <p>Durability: JGit forces no ref file (git's default), and the ledger names what these
 * writes made (a proposal's commit) once they return. So a new branch's objects, written as one
 * pack kept from git's gc by a keep file until the branch names them, are forced with their
 * directory before the ref is written, and the ref file and the directories up to {@code refs/}
 * before the method returns: after a power loss the ledger never names a commit whose objects or
 * branch came back empty or missing.
 */
final class RefWrites {
    private RefWrites() {}

    /** Makes a file or a directory durable (an fsync); tests record what is forced instead. */
    @FunctionalInterface
    interface Force {
        void force(Path fileOrDirectory) throws IOException;

        Force FSYNC = p -> {
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                ch.force(true);
            }
        };
    }

    /** See {@link GitStore#retireRef}. */
    static void retireRef(Repository repo, String from, String to, ObjectId expected, Force force) throws IOException {
        RefUpdate create = repo.updateRef(to);
        create.setNewObjectId(expected);
        create.setForceUpdate(true);
        RefUpdate.Result cr = create.update();
        if (cr != RefUpdate.Result.NEW && cr != RefUpdate.Result.FORCED && cr != RefUpdate.Result.NO_CHANGE) {
            throw new IOException("cannot create " + to + ": " + cr);
        }
        forceRef(repo, to, force); // before the old name goes: one of the two names always survives
        RefUpdate del = repo.updateRef(from);
        del.setExpectedOldObjectId(expected);
        del.setForceUpdate(true);
        RefUpdate.Result dr = del.delete();
        if (dr != RefUpdate.Result.FORCED && dr != RefUpdate.Result.NO_CHANGE) {
            throw new IOException("cannot delete " + from + ": " + dr);
        }
        force.force(refFile(repo, from).getParent());
        Path packed = repo.getDirectory().toPath().resolve(Constants.PACKED_REFS);
        if (Files.exists(packed, LinkOption.NOFOLLOW_LINKS)) {
            force.force(packed); // a delete rewrites it when the ref was packed
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
            String message,
            Force force)
            throws IOException {
        // The new objects go into one pack with a keep file, not loose: until the ref below names
        // them no ref does, and a `git gc --prune=now` started meanwhile would delete loose ones
        // (and drop a pack without a keep), leaving the branch naming a commit that is gone.
        ObjectDirectory odb = (ObjectDirectory) repo.getObjectDatabase();
        BatchPackInserter pack = new BatchPackInserter(odb, 1, null, Forcer.FILES);
        BatchPackInserter.Installed installed = null;
        try (ObjectInserter ins = new NewObjectsOnly(pack, odb);
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
            installed = pack.installed();
            if (installed != null) {
                force.force(installed.pack());
                force.force(installed.idx());
                force.force(installed.pack().getParent());
            }
            RefUpdate ru = repo.updateRef(Constants.R_HEADS + ref);
            ru.setNewObjectId(c);
            ru.setExpectedOldObjectId(ObjectId.zeroId());
            RefUpdate.Result r = ru.update();
            if (r != RefUpdate.Result.NEW) {
                throw new IOException("cannot create branch " + ref + ": " + r);
            }
            forceRef(repo, Constants.R_HEADS + ref, force);
            return c;
        } finally {
            try {
                pack.release(installed); // the ref names the objects now, or they are garbage
            } finally {
                pack.close();
            }
        }
    }

    /** Forces the loose ref file {@code name} and each directory from its own up to {@code refs/}. */
    private static void forceRef(Repository repo, String name, Force force) throws IOException {
        Path file = refFile(repo, name);
        if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            force.force(file);
        }
        Path refs = repo.getDirectory().toPath().resolve(Constants.R_REFS);
        for (Path d = file.getParent(); d != null && d.startsWith(refs); d = d.getParent()) {
            force.force(d);
        }
    }

    private static Path refFile(Repository repo, String name) {
        return repo.getDirectory().toPath().resolve(name);
    }

    /**
     * Writes only objects the repository lacks, as JGit's inserter of loose objects does: an
     * unchanged tree or blob of the parent is not copied into the new pack.
     */
    private static final class NewObjectsOnly extends ObjectInserter.Filter {
        private final ObjectInserter delegate;
        private final ObjectDirectory odb;

        NewObjectsOnly(ObjectInserter delegate, ObjectDirectory odb) {
            this.delegate = delegate;
            this.odb = odb;
        }

        @Override
        protected ObjectInserter delegate() {
            return delegate;
        }

        @Override
        public ObjectId insert(int type, byte[] data) throws IOException {
            return insert(type, data, 0, data.length);
        }

        @Override
        public ObjectId insert(int type, byte[] data, int off, int len) throws IOException {
            ObjectId id = delegate.idFor(type, data, off, len);
            return odb.has(id) ? id : delegate.insert(type, data, off, len);
        }

        @Override
        public ObjectId insert(int type, long length, InputStream in) throws IOException {
            return insert(type, in.readNBytes(Math.toIntExact(length)));
        }
    }
}
