package dev.memoryd.daemon.console;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The console's login token: random, kept in {@code <root>/.memoryd/console.token} (mode 0600,
 * so only the root's owner can read it), and good for one login. Redeeming it replaces it with a
 * fresh one in the file, so a login URL seen once (in a terminal's scrollback, a browser's
 * history) opens nothing afterwards. Thread-safe.
 */
final class LoginToken {
    private final Path file;
    private String current;

    private LoginToken(Path file) {
        this.file = file;
    }

    /** A fresh token, written to {@code file} (its directory made 0700 if missing). */
    static LoginToken create(Path file) throws IOException {
        LoginToken t = new LoginToken(file);
        t.rotate();
        return t;
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

    private void rotate() throws IOException {
        Path dir = file.getParent();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(
                    dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        String next = Secrets.fresh();
        Path tmp = Files.createTempFile(
                dir,
                "console.token.",
                ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, next + "\n");
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        current = next;
    }

    /** Removes the file (the console is closing: its token opens nothing any more). */
    synchronized void delete() throws IOException {
        Files.deleteIfExists(file);
    }
}
