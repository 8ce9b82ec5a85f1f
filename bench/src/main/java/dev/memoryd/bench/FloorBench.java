package dev.memoryd.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import org.eclipse.jgit.lib.PersonIdent;

/**
 * {@code bench --floor}: what a write cannot be faster than on this machine, measured beside the
 * root: a bare 600-byte append + fsync (2,000 of them) and a bare low-level JGit commit (1,000,
 * after 200 unmeasured).
 */
final class FloorBench {
    private FloorBench() {}

    /** The physical floor on this machine, as {@code floor}'s fields. */
    static ObjectNode measure(Path dir) throws IOException {
        ObjectNode f = JsonRpc.MAPPER.createObjectNode();
        Path log = dir.resolveSibling(dir.getFileName() + ".floor.log");
        byte[] line = new byte[600];
        Arrays.fill(line, (byte) 'x');
        line[599] = '\n';
        long[] t = new long[2000];
        try (FileChannel ch =
                FileChannel.open(log, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            for (int i = 0; i < t.length; i++) {
                long s = System.nanoTime();
                ch.write(ByteBuffer.wrap(line));
                ch.force(false);
                t[i] = System.nanoTime() - s;
            }
        }
        Files.deleteIfExists(log);
        f.put("append_fsync_p50_ms", Stats.round(pct(t, 50) / 1e6));
        f.put("append_fsync_p99_ms", Stats.round(pct(t, 99) / 1e6));
        Path repo = dir.resolveSibling(dir.getFileName() + ".floor-git");
        GitStore.init(repo, "main");
        long[] g = new long[1000];
        // A bare low-level JGit commit as JGit does it by default (loose objects): one blob, one
        // tree, one commit, one ref update.
        try (org.eclipse.jgit.lib.Repository r = new org.eclipse.jgit.storage.file.FileRepositoryBuilder()
                .setGitDir(repo.resolve(".git").toFile())
                .build()) {
            org.eclipse.jgit.lib.ObjectId parent = null;
            for (int i = 0; i < g.length + 200; i++) {
                PersonIdent who = new PersonIdent("floor", "floor@localhost", Instant.now(), ZoneOffset.UTC);
                long s = System.nanoTime();
                try (org.eclipse.jgit.lib.ObjectInserter ins = r.newObjectInserter()) {
                    org.eclipse.jgit.lib.ObjectId blob = ins.insert(
                            org.eclipse.jgit.lib.Constants.OBJ_BLOB,
                            ("content " + i + "\n").repeat(20).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    org.eclipse.jgit.lib.TreeFormatter tf = new org.eclipse.jgit.lib.TreeFormatter();
                    tf.append("profile.md", org.eclipse.jgit.lib.FileMode.REGULAR_FILE, blob);
                    org.eclipse.jgit.lib.CommitBuilder cb = new org.eclipse.jgit.lib.CommitBuilder();
                    cb.setTreeId(ins.insert(tf));
                    if (parent != null) {
                        cb.setParentId(parent);
                    }
                    cb.setAuthor(who);
                    cb.setCommitter(who);
                    cb.setMessage("floor " + i + "\n");
                    org.eclipse.jgit.lib.ObjectId c = ins.insert(cb);
                    ins.flush();
                    org.eclipse.jgit.lib.RefUpdate ru = r.updateRef("refs/heads/main");
                    ru.setNewObjectId(c);
                    ru.update();
                    parent = c;
                }
                if (i >= 200) {
                    g[i - 200] = System.nanoTime() - s;
                }
            }
        }
        f.put("jgit_commit_p50_ms", Stats.round(pct(g, 50) / 1e6));
        f.put("jgit_commit_p99_ms", Stats.round(pct(g, 99) / 1e6));
        return f;
    }

    private static long pct(long[] a, int p) {
        long[] c = a.clone();
        Arrays.sort(c);
        return c[Math.min(c.length - 1, (int) Math.ceil(c.length * p / 100.0) - 1)];
    }
}
