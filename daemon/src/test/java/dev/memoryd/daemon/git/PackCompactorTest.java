package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
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
            assertTrue(PackCompactor.maybeCompact(repo, new ReplacedPacks()) > 1, "ten small packs are rolled up");
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

    @Test
    void aRollUp_combinesAtMostItsBoundOfPackBytes_andLeavesPacksOfHalfItAlone() throws Exception {
        try (Repository repo = new FileRepository(tmp.resolve("r.git").toFile())) {
            repo.create(true);
            ObjectDirectory odb = (ObjectDirectory) repo.getObjectDatabase();
            // Two packs of 40 KB of noise (deflate keeps them that size), ten small ones.
            List<ObjectId> blobs = noisePacks(odb, new java.util.Random(7), 12, i -> i < 2 ? 40_000 : 200);
            long bound = 60_000;
            java.util.Set<String> large = new java.util.HashSet<>();
            for (org.eclipse.jgit.internal.storage.file.Pack p : odb.getPacks()) {
                if (java.nio.file.Files.size(p.getPackFile().toPath()) >= bound / 2) {
                    large.add(p.getPackName());
                }
            }
            assertEquals(2, large.size(), "two packs of half the bound or more");
            int combined = PackCompactor.maybeCompact(repo, new ReplacedPacks(), bound);
            assertTrue(combined >= 2, "the small packs are rolled up: " + combined);
            java.util.Set<String> after = new java.util.HashSet<>();
            for (org.eclipse.jgit.internal.storage.file.Pack p : odb.getPacks()) {
                after.add(p.getPackName());
                assertTrue(
                        large.contains(p.getPackName())
                                || java.nio.file.Files.size(p.getPackFile().toPath()) < bound,
                        "a combined pack stays within the bound: " + p.getPackFile());
            }
            assertTrue(after.containsAll(large), "packs over the bound are left as they are");
            assertTrue(after.size() < 12, "the small ones became fewer: " + after.size());
            for (ObjectId b : blobs) {
                assertTrue(odb.has(b), b.name());
            }
        }
    }

    @Test
    void aRollUp_streamsThePacksItCombines_holdingNoneOfThemInMemory() throws Exception {
        try (Repository repo = new FileRepository(tmp.resolve("r.git").toFile())) {
            repo.create(true);
            ObjectDirectory odb = (ObjectDirectory) repo.getObjectDatabase();
            List<ObjectId> blobs = noisePacks(odb, new java.util.Random(11), 10, i -> 1 << 20); // each about 1 MiB
            com.sun.management.ThreadMXBean mx =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long t = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(t);
            int combined = PackCompactor.maybeCompact(repo, new ReplacedPacks());
            long allocated = mx.getThreadAllocatedBytes(t) - before;
            assertTrue(combined >= 2, "the packs were rolled up: " + combined);
            assertTrue(
                    allocated < 4 << 20,
                    "a roll-up of about " + combined + " MiB of packs allocated " + (allocated >> 10) + " KiB");
            for (ObjectId b : blobs) {
                assertTrue(odb.has(b), b.name());
            }
        }
    }

    /** {@code n} packs of one blob of random bytes each (deflate keeps them their size), the i-th of {@code size(i)} bytes. */
    private static List<ObjectId> noisePacks(
            ObjectDirectory odb, java.util.Random rnd, int n, java.util.function.IntUnaryOperator size)
            throws Exception {
        List<ObjectId> blobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] data = new byte[size.applyAsInt(i)];
            rnd.nextBytes(data);
            try (ObjectInserter ins = odb.newPackInserter()) {
                blobs.add(ins.insert(Constants.OBJ_BLOB, data));
                ins.flush();
            }
        }
        return blobs;
    }

    /** A process that stays alive while a test plays a git gc holding its lock. */
    private static Process aLiveProcess() throws Exception {
        return new ProcessBuilder("sleep", "120").start();
    }

    /** Writes {@code gitDir}/gc.pid as git gc does: "PID HOST", no newline. */
    private static void gcHolds(Path gitDir, long pid) throws Exception {
        Files.writeString(gitDir.resolve("gc.pid"), pid + " " + GcLock.host());
    }

    private static Set<String> packFiles(Path gitDir) throws Exception {
        try (Stream<Path> s = Files.list(gitDir.resolve("objects/pack"))) {
            return new TreeSet<>(s.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".pack"))
                    .toList());
        }
    }

    private static String git(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor() + ": " + out.strip();
    }

    @Test
    void aRollUpWhileAGitGcRuns_deletesNoPack_andDeletesTheReplacedOnesOnceItIsOver() throws Exception {
        Process gc = aLiveProcess();
        try (Repository repo = new FileRepository(tmp.resolve("r.git").toFile())) {
            repo.create(true);
            Path gitDir = repo.getDirectory().toPath();
            List<ObjectId> blobs = tenPacks(repo);
            Set<String> before = packFiles(gitDir);
            ReplacedPacks replaced = new ReplacedPacks();
            gcHolds(gitDir, gc.pid());
            int combined = PackCompactor.maybeCompact(repo, replaced);
            assertTrue(combined > 1, "the roll-up itself goes ahead");
            Set<String> now = packFiles(gitDir);
            assertTrue(now.containsAll(before), "a pack the gc may be listing was deleted: " + now);
            assertEquals(before.size() + 1, now.size(), "the combined pack is added: " + now);
            assertEquals(combined, replaced.waiting());
            assertEquals(gc.pid() + " " + GcLock.host(), Files.readString(gitDir.resolve("gc.pid")), "the gc's lock");
            ObjectDirectory odb = (ObjectDirectory) repo.getObjectDatabase();
            for (ObjectId b : blobs) {
                assertTrue(odb.has(b), b.name());
            }
            assertEquals(0, PackCompactor.maybeCompact(repo, replaced), "replaced packs are not rolled up again");
            assertEquals(now, packFiles(gitDir), "still nothing deleted while the gc runs");

            Files.delete(gitDir.resolve("gc.pid")); // the gc is over
            try (Warnings w = new Warnings()) {
                assertEquals(0, PackCompactor.maybeCompact(repo, replaced));
                assertEquals(before.size() - combined + 1, packFiles(gitDir).size(), "the replaced packs are gone");
                assertEquals(0, replaced.waiting());
                assertFalse(Files.exists(gitDir.resolve("gc.pid")), "memoryd gave git's gc lock back");
                assertFalse(Files.exists(gitDir.resolve("gc.pid.lock")));
                assertFalse(odb.has(ObjectId.fromString("0123456789012345678901234567890123456789")));
                for (ObjectId b : blobs) {
                    assertTrue(odb.has(b), b.name());
                }
                assertEquals(List.of(), w.seen, "JGit read a pack the roll-up had deleted");
            }
        } finally {
            gc.destroyForcibly();
        }
    }

    @Test
    void aGcLockLeftByADeadProcess_orByThisOne_holdsNothingBack() throws Exception {
        Process gone = aLiveProcess();
        gone.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        try (Repository repo = new FileRepository(tmp.resolve("r.git").toFile())) {
            repo.create(true);
            Path gitDir = repo.getDirectory().toPath();
            tenPacks(repo);
            gcHolds(gitDir, gone.pid());
            assertFalse(GcLock.heldByOther(gitDir), "a dead gc's lock");
            gcHolds(gitDir, ProcessHandle.current().pid());
            assertFalse(GcLock.heldByOther(gitDir), "this process's own lock");
            Files.writeString(gitDir.resolve("gc.pid"), ProcessHandle.current().pid() + " another-host");
            assertTrue(GcLock.heldByOther(gitDir), "a lock taken on another host is held");
            gcHolds(gitDir, gone.pid());
            ReplacedPacks replaced = new ReplacedPacks();
            int combined = PackCompactor.maybeCompact(repo, replaced);
            assertTrue(combined > 1);
            assertEquals(0, replaced.waiting(), "the replaced packs were deleted at once");
            assertEquals(10 - combined + 1, packFiles(gitDir).size());
        }
    }

    @Test
    void realGitGc_whileMemorydHoldsTheGcLock_saysItIsAlreadyRunning_andRunsOnceItIsGiven() throws Exception {
        Path work = tmp.resolve("w");
        assertTrue(git(tmp, "init", "-q", "-b", "main", work.toString()).startsWith("0:"));
        Files.writeString(work.resolve("a.txt"), "a\n");
        assertTrue(git(work, "add", "a.txt").startsWith("0:"));
        assertTrue(git(work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "a")
                .startsWith("0:"));
        Path gitDir = work.resolve(".git");
        try (GcLock held = GcLock.tryTake(gitDir).orElseThrow()) {
            String r = git(work, "gc", "-q");
            assertFalse(r.startsWith("0:"), r);
            assertTrue(r.contains("gc is already running"), r);
            assertTrue(r.contains("pid " + ProcessHandle.current().pid()), r);
        }
        assertFalse(Files.exists(gitDir.resolve("gc.pid")));
        String r = git(work, "gc", "-q");
        assertTrue(r.startsWith("0:"), r);
    }

    /**
     * A multi-pack index ({@code git multi-pack-index write}, as {@code git maintenance}'s
     * incremental repack writes it) names the packs it covers: the packs a roll-up replaced are
     * deleted with it, as {@code git repack -d} does, and not while a maintenance run holds its
     * lock. Before, the index stayed naming deleted packs: {@code git fsck} failed ("failed to load
     * pack entry") and {@code doctor} reported missing objects.
     */
    @Test
    void packsAMultiPackIndexNames_goWithIt_andNotWhileGitMaintenanceRuns() throws Exception {
        Path work = tmp.resolve("w");
        assertTrue(git(tmp, "init", "-q", "-b", "main", work.toString()).startsWith("0:"));
        try (GitStore g = GitStore.open(work, "main")) {
            Repository repo = g.repository();
            Path gitDir = repo.getDirectory().toPath();
            Path packDir = gitDir.resolve("objects/pack");
            List<ObjectId> blobs = tenPacks(repo);
            String written = git(work, "multi-pack-index", "write");
            assertTrue(written.startsWith("0:"), written);
            assertTrue(Files.exists(packDir.resolve("multi-pack-index")));
            Set<String> before = packFiles(gitDir);

            Path maintenance = gitDir.resolve("objects/maintenance.lock");
            Files.createFile(maintenance); // a git maintenance run is listing the packs
            int combined = g.compactPacks();
            assertTrue(combined > 1, "the roll-up itself goes ahead");
            assertTrue(packFiles(gitDir).containsAll(before), "a pack was deleted while git maintenance ran");
            assertTrue(Files.exists(packDir.resolve("multi-pack-index")));

            Files.delete(maintenance);
            g.compactPacks();
            assertEquals(before.size() - combined + 1, packFiles(gitDir).size(), "the replaced packs are gone");
            assertFalse(Files.exists(packDir.resolve("multi-pack-index")), "it named packs that are gone");
            String fsck = git(work, "fsck", "--no-dangling");
            assertTrue(fsck.startsWith("0:") && !fsck.contains("failed to load"), fsck);
            for (ObjectId b : blobs) {
                assertTrue(git(work, "cat-file", "-e", b.name()).startsWith("0:"), b.name());
            }
            written = git(work, "multi-pack-index", "write");
            assertTrue(written.startsWith("0:"), written);
            String verify = git(work, "multi-pack-index", "verify");
            assertTrue(verify.startsWith("0:"), "git writes it again over the packs as they are: " + verify);
        }
    }

    @Test
    void aGitGcThatStartsDuringARollUp_keepsEveryPackItListed() throws Exception {
        Path work = tmp.resolve("w");
        assertTrue(git(tmp, "init", "-q", "-b", "main", work.toString()).startsWith("0:"));
        Process gc = aLiveProcess();
        try (GitStore g = GitStore.open(work, "main")) {
            Repository repo = g.repository();
            Path gitDir = repo.getDirectory().toPath();
            Path packDir = gitDir.resolve("objects/pack");
            Random rnd = new Random(20261126);
            boolean inTime = false;
            for (int attempt = 0; attempt < 5 && !inTime; attempt++) {
                for (int i = 0; i < 10; i++) { // big enough that copying them takes a while
                    byte[] b = new byte[3 << 20];
                    rnd.nextBytes(b);
                    try (ObjectInserter ins = ((ObjectDirectory) repo.getObjectDatabase()).newPackInserter()) {
                        ins.insert(Constants.OBJ_BLOB, b);
                        ins.flush();
                    }
                }
                Set<String> before = packFiles(gitDir);
                AtomicBoolean caught = new AtomicBoolean();
                AtomicBoolean done = new AtomicBoolean();
                Thread watcher = new Thread(() -> {
                    // A gc starting while the roll-up writes its pack: it takes gc.pid and lists the packs.
                    try {
                        while (!done.get()) {
                            try (Stream<Path> s = Files.list(packDir)) {
                                if (s.anyMatch(p -> p.getFileName().toString().startsWith("memoryd_compact_"))) {
                                    gcHolds(gitDir, gc.pid());
                                    try (Stream<Path> again = Files.list(packDir)) {
                                        caught.set(again.anyMatch(
                                                p -> p.getFileName().toString().startsWith("memoryd_compact_")));
                                    }
                                    return;
                                }
                            }
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                watcher.start();
                int combined = g.compactPacks();
                done.set(true);
                watcher.join();
                if (combined == 0 || !caught.get()) {
                    Files.deleteIfExists(gitDir.resolve("gc.pid"));
                    continue; // the gc began too late to overlap this roll-up: try again
                }
                inTime = true;
                assertTrue(
                        packFiles(gitDir).containsAll(before),
                        "a pack was deleted while the gc that started during the roll-up was running");
                Files.delete(gitDir.resolve("gc.pid"));
                g.compactPacks();
                assertEquals(before.size() - combined + 1, packFiles(gitDir).size(), "deleted once the gc is over");
            }
            assertTrue(inTime, "the gc never started during a roll-up in 5 tries");
        } finally {
            gc.destroyForcibly();
        }
    }
}
