package dev.memoryd.daemon.console;

import dev.memoryd.daemon.layout.PrivateDir;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * One console per root: {@code <root>/.git/memoryd/console} ({@code .memoryd/console.lock} in a
 * root without a git directory), locked by the running console for its
 * life (an OS file lock, so a console that dies frees it) and holding its URL and process id. A
 * second console finds it locked and refuses to start, naming the first one's URL, instead of
 * replacing the token file the first one's login URL lives in. Not thread-safe: one per console.
 */
final class ConsoleLock implements AutoCloseable {
    /** Another console holds the root. */
    static final class Held extends IOException {
        Held(String message) {
            super(message);
        }
    }

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;

    private ConsoleLock(Path file, FileChannel channel, FileLock lock) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes the root's console lock, or {@link Held} naming the console that has it. */
    static ConsoleLock acquire(Path root) throws IOException {
        Path dir = root.resolve(".memoryd");
        PrivateDir.ensure(dir);
        // In the git directory, which no git command cleans (a `git clean -fdx` takes `.memoryd/`
        // and a lock there with it), as the daemon's own lock; named unlike git's stale ".lock" files.
        Path git = root.resolve(".git");
        Path file;
        if (Files.isDirectory(git)) {
            Files.createDirectories(git.resolve("memoryd"));
            file = git.resolve("memoryd").resolve("console");
        } else {
            file = dir.resolve("console.lock");
        }
        FileChannel ch =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // this process already runs a console for the root
        }
        if (lock == null) {
            String who = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip();
            ch.close();
            throw new Held("a console for " + root + " is already running" + (who.isEmpty() ? "" : " at " + who)
                    + "; use it (its login URL is in " + dir.resolve("console.token") + "), or stop it first");
        }
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the lock still works
        }
        return new ConsoleLock(file, ch, lock);
    }

    /** Records the running console's URL for a second one's refusal to name. */
    void record(String base) throws IOException {
        channel.truncate(0);
        channel.write(
                ByteBuffer.wrap(
                        (base + " (pid " + ProcessHandle.current().pid() + ")\n").getBytes(StandardCharsets.UTF_8)),
                0);
        channel.force(false);
    }

    /** Removes the file and lets go of the lock. */
    @Override
    public void close() throws IOException {
        Files.deleteIfExists(file);
        lock.release();
        channel.close();
    }
}
