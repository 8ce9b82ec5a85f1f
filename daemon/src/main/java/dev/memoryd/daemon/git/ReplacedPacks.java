package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;

/**
 * The packs a roll-up replaced, waiting to be deleted. A {@code git gc} lists the packs when it
 * starts and opens each one's index later; a pack deleted in between makes it fail ("unable to
 * add recent objects"). So replaced packs are deleted only under git's gc lock ({@link GcLock}),
 * and while a gc holds it they stay: their objects are also in the pack that replaced them, so
 * they cost disk space, never correctness. A pack named here is not rolled up again.
 *
 * <p>Not persistent: after a restart the packs left over are ordinary packs, rolled up (their
 * duplicates dropped) like any other. Not thread-safe: one per repository, used under its
 * roll-up lock ({@link GitStore#compactPacks}).
 */
final class ReplacedPacks {
    private static final String[] EXTENSIONS = {".pack", ".idx", ".rev", ".bitmap"};

    private final Set<String> names = new LinkedHashSet<>();

    boolean contains(String packName) {
        return names.contains(packName);
    }

    void add(String packName) {
        names.add(packName);
    }

    /** How many packs wait for deletion. */
    int waiting() {
        return names.size();
    }

    /**
     * Deletes the waiting packs' files when no gc and no {@code git maintenance} run is under way
     * (git's gc lock taken for the moment), and has JGit list the directory again; returns how many
     * were deleted, 0 while one runs. A multi-pack index ({@code git maintenance}'s incremental
     * repack, {@code git multi-pack-index write}) names packs by name: it goes first, as {@code git
     * repack -d} removes it, so that no git command finds it naming a pack that is gone (git
     * reads each pack's own index without it, and the next maintenance run writes it again).
     */
    int deleteUnlessGcRuns(ObjectDirectory odb, Path gitDir) throws IOException {
        if (names.isEmpty() || Files.exists(odb.getDirectory().toPath().resolve("maintenance.lock"))) {
            return 0;
        }
        Optional<GcLock> lock = GcLock.tryTake(gitDir);
        if (lock.isEmpty()) {
            return 0;
        }
        int n = names.size();
        try (GcLock held = lock.get()) {
            Path packDir = odb.getPackDirectory().toPath();
            removeMultiPackIndex(packDir);
            // Not closed first: a reader walking JGit's list right now still finds its index in
            // memory (a deleted file stays readable while open); the rescan below closes it.
            for (String name : names) {
                for (String ext : EXTENSIONS) {
                    Files.deleteIfExists(packDir.resolve("pack-" + name + ext));
                }
            }
            names.clear();
        }
        // JGit keeps listing the deleted packs until it rescans the directory; left there, the next
        // lookup that misses (every insert checks for its object first) reopens their deleted index
        // files and logs a warning with a stack trace for each.
        odb.getPacks();
        return n;
    }

    /** Removes the multi-pack index and the files that go with it, as git's {@code clear_midx_file} does. */
    private static void removeMultiPackIndex(Path packDir) throws IOException {
        Files.deleteIfExists(packDir.resolve("multi-pack-index"));
        try (java.util.stream.Stream<Path> s = Files.list(packDir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String f = p.getFileName().toString();
                if (f.startsWith("multi-pack-index-") && (f.endsWith(".bitmap") || f.endsWith(".rev"))) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
