package dev.memoryd.daemon.console;

import dev.memoryd.daemon.layout.PrivateDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The console's login token: random, kept in {@code <root>/.memoryd/console.token} (mode 0600,
 * so only the root's owner can read it), and good for one login. Redeeming it replaces it with a
 * fresh one in the file, so a login URL seen once (in a terminal's scrollback, a browser's
 * history) opens nothing afterwards. The file is written again when something removed it (a
 * {@code git clean -fdx}), with the same token. Thread-safe.
 */
final class LoginToken {
    /** How often the file is looked for. */
    static final Duration KEEP_EVERY = Duration.ofSeconds(2);

    private static final Logger LOG = Logger.getLogger(LoginToken.class.getName());
    private final ScheduledExecutorService keeper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "memoryd-console-token");
        t.setDaemon(true);
        return t;
    });
    private final Path file;
    private String current;

    private LoginToken(Path file) {
        this.file = file;
    }

    /**
     * A fresh token, written to {@code file} (its directory made 0700 if missing) and written again
     * within {@link #KEEP_EVERY} whenever the file is gone, until {@link #delete}.
     */
    static LoginToken create(Path file) throws IOException {
        LoginToken t = new LoginToken(file);
        t.rotate();
        t.keeper.scheduleWithFixedDelay(
                t::restoreQuietly, KEEP_EVERY.toMillis(), KEEP_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        return t;
    }

    private void restoreQuietly() {
        try {
            restoreIfGone();
        } catch (IOException e) {
            // The directory is being removed under it (a git clean): the next round writes it.
            LOG.log(Level.FINE, "the console's token file could not be written again yet", e);
        }
    }

    synchronized String current() {
        return current;
    }

    Path file() {
        return file;
    }

    /**
     * Whether {@code presented} is the current token; if it is, it is used up and a new one
     * replaces it (in memory and in the file) before this returns.
     */
    synchronized boolean redeem(String presented) throws IOException {
        if (!Secrets.same(current, presented)) {
            return false;
        }
        rotate();
        return true;
    }

    /**
     * Writes the current token to its file again when the file is gone (a {@code git clean -fdx}
     * takes {@code .memoryd/}): a second console's refusal points there for the login URL.
     */
    synchronized void restoreIfGone() throws IOException {
        if (current != null && !Files.exists(file)) {
            write(current);
        }
    }

    private void rotate() throws IOException {
        String next = Secrets.fresh();
        write(next);
        current = next;
    }

    private void write(String token) throws IOException {
        Path dir = file.getParent();
        PrivateDir.ensure(dir);
        Path tmp = Files.createTempFile(
                dir,
                "console.token.",
                ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, token + "\n");
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Removes the file (the console is closing: its token opens nothing any more). */
    synchronized void delete() throws IOException {
        keeper.shutdownNow();
        current = null;
        Files.deleteIfExists(file);
    }
}
