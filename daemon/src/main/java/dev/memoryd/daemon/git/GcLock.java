package dev.memoryd.daemon.git;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Git's lock against two garbage collections at once, {@code gc.pid} in the git directory, taken
 * and honoured as {@code git gc} does: the file names the holder's process id and host; it is
 * written as {@code gc.pid.lock} and renamed into place; it counts as held while it is younger
 * than 12 hours and its process is alive (or on another host). memoryd takes it only for the
 * moment it deletes packs a roll-up replaced, so a {@code git gc} that is listing packs never
 * sees one vanish, and a gc started in that moment says "gc is already running" as it would
 * beside another gc.
 *
 * <p>Not thread-safe: callers serialise (the roll-ups of one repository run one at a time).
 */
final class GcLock implements AutoCloseable {
    private static final long FRESH_MS = 12 * 3_600_000L;

    private final Path pidFile;
    private final String mine;

    private GcLock(Path pidFile, String mine) {
        this.pidFile = pidFile;
        this.mine = mine;
    }

    /** Whether a process other than this one holds {@code gitDir}'s gc lock. */
    static boolean heldByOther(Path gitDir) throws IOException {
        Path pid = gitDir.resolve("gc.pid");
        String text;
        long modified;
        try {
            modified = Files.getLastModifiedTime(pid).toMillis();
            text = Files.readString(pid, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return false;
        }
        if (modified <= System.currentTimeMillis() - FRESH_MS) {
            return false; // git gc takes over a lock this old whoever holds it
        }
        String[] parts = text.strip().split(" ", 2);
        long holder;
        try {
            holder = Long.parseLong(parts[0]);
        } catch (NumberFormatException e) {
            return true; // git would take it over; waiting for it to age is the side that loses nothing
        }
        if (parts.length < 2 || !parts[1].equals(host())) {
            return true;
        }
        return holder != ProcessHandle.current().pid()
                && ProcessHandle.of(holder).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Takes {@code gitDir}'s gc lock; empty when another process holds it or is taking it. */
    static Optional<GcLock> tryTake(Path gitDir) throws IOException {
        Path lock = gitDir.resolve("gc.pid.lock");
        String mine = ProcessHandle.current().pid() + " " + host();
        try {
            Files.writeString(
                    lock, mine, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            return Optional.empty();
        }
        try {
            if (heldByOther(gitDir)) {
                Files.delete(lock);
                return Optional.empty();
            }
            Path pid = gitDir.resolve("gc.pid");
            Files.move(lock, pid, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return Optional.of(new GcLock(pid, mine));
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(lock);
            throw e;
        }
    }

    /** Gives the lock up, unless someone took it over meanwhile (as git gc does with an old one). */
    @Override
    public void close() throws IOException {
        try {
            if (Files.readString(pidFile, StandardCharsets.UTF_8).equals(mine)) {
                Files.delete(pidFile);
            }
        } catch (NoSuchFileException e) {
            // removed by someone who judged it stale: nothing of ours is left to give up
        }
    }

    /** This machine's name as git writes it ({@code gethostname(2)}). */
    static String host() throws IOException {
        Path uts = Path.of("/proc/sys/kernel/hostname");
        if (Files.isReadable(uts)) {
            return Files.readString(uts, StandardCharsets.UTF_8).strip();
        }
        return InetAddress.getLocalHost().getHostName();
    }
}
