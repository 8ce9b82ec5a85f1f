package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PackCompactorTest {
    @TempDir
    Path tmp;

    /** Collects what JGit logs about its packs (through slf4j's java.util.logging binding). */
    private static final class Warnings extends Handler implements AutoCloseable {
        final List<String> seen = new ArrayList<>();
        private final Logger logger = Logger.getLogger("org.eclipse.jgit.internal.storage.file.PackDirectory");

        Warnings() {
            logger.addHandler(this);
        }

        @Override
        public synchronized void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                seen.add(r.getMessage());
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {
            logger.removeHandler(this);
        }
    }

    private static List<ObjectId> tenPacks(Repository repo) throws Exception {
        List<ObjectId> blobs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            try (ObjectInserter ins = ((ObjectDirectory) repo.getObjectDatabase()).newPackInserter()) {
                blobs.add(ins.insert(
                        Constants.OBJ_BLOB, ("blob " + i + "\n").repeat(i + 1).getBytes(StandardCharsets.UTF_8)));
                ins.flush();
            }
        }
        return blobs;
    }

    @Test
    void rollingUpPacks_keepsEveryObject_andLeavesNoDeletedPackInJGitsList() throws Exception {
        try (Repository repo = new FileRepository(tmp.resolve("r.git").toFile())) {
            repo.create(true);
            List<ObjectId> blobs = tenPacks(repo);
            ObjectDirectory odb = (ObjectDirectory) repo.getObjectDatabase();
            assertEquals(10, odb.getPacks().size());
            assertTrue(PackCompactor.maybeCompact(repo) > 1, "ten small packs are rolled up");
            try (Warnings w = new Warnings()) {
                // A lookup that misses walks every pack JGit lists: one the roll-up deleted must not be among them.
                assertFalse(odb.has(ObjectId.fromString("0123456789012345678901234567890123456789")));
                for (ObjectId b : blobs) {
                    assertTrue(odb.has(b), b.name());
                }
                assertEquals(List.of(), w.seen, "JGit read a pack the roll-up had deleted");
            }
        }
    }
}
