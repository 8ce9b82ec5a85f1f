package dev.memoryd.daemon.layout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The one rule for the state directory ({@code .memoryd/}) and what memoryd keeps in it: only
 * the root's owner may enter (mode 0700 where the file system is POSIX), since it holds the
 * socket, old versions of memory files (spare inodes) and the ledger journal. Made again by
 * whichever part needs it first when a {@code git clean -fdx} removed it while the daemon runs.
 * Stateless and thread-safe.
 */
public final class PrivateDir {
    private PrivateDir() {}

    /** Makes {@code dir} and its missing parents, each one made private; an existing directory is left as it is. */
    public static void ensure(Path dir) throws IOException {
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createDirectories(
                    dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
            Files.createDirectories(dir);
        }
    }
}
