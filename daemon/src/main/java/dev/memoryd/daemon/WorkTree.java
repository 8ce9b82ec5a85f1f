package dev.memoryd.daemon;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.memoryd.grammar.RepoPath;

/**
 * The checked-out files of the memory root. Every path is confined to the root: a path whose
 * existing prefix is a symlink is refused, so nothing outside the root is read or written.
 * Writes are atomic and durable: temp file in the same directory, fsync, rename, fsync of the
 * directory (JGit LockFile's discipline). Thread-safe for reads; writes come from the writer.
 */
final class WorkTree {
  private final Path root;

  WorkTree(Path root) {
    this.root = root;
  }

  Path root() {
    return root;
  }

  /** Resolves a repo path to a file under the root, refusing symlinks on the way. */
  Path resolve(RepoPath p) throws IOException {
    Path cur = root;
    for (String seg : p.value().split("/")) {
      cur = cur.resolve(seg);
      if (Files.isSymbolicLink(cur)) {
        throw new SecurityException("path " + p.value() + " passes through a symlink ("
            + root.relativize(cur) + "); memoryd does not follow links out of the root");
      }
    }
    return cur;
  }

  Optional<String> read(RepoPath p) throws IOException {
    Path f = resolve(p);
    try {
      if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.empty();
      }
      return Optional.of(Files.readString(f, StandardCharsets.UTF_8));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** Writes all files, each atomically; directories touched are fsynced once at the end. */
  void writeAll(Map<String, byte[]> files) throws IOException {
    Set<Path> dirs = new LinkedHashSet<>();
    for (Map.Entry<String, byte[]> e : files.entrySet()) {
      Path target = resolve(RepoPath.of(e.getKey()));
      Path dir = target.getParent();
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir);
        dirs.add(dir.getParent());
      }
      Path tmp = dir.resolve("." + target.getFileName() + ".memoryd-tmp");
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        ByteBuffer b = ByteBuffer.wrap(e.getValue());
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(false);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException ex) {
        throw new IOException("the file system of " + root + " cannot rename atomically", ex);
      }
      dirs.add(dir);
    }
    for (Path d : dirs) {
      fsyncDir(d);
    }
  }

  static void fsyncDir(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
