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
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
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
  static final String TMP_SUFFIX = ".memoryd-tmp";
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
    stage(files).publish();
  }

  /**
   * First half of {@link #writeAll}: each file's bytes go to a temp file beside it and are
   * fsynced; nothing a reader sees changes yet, so this may run while the ledger is still being
   * made durable. {@link Staged#publish()} renames them into place.
   */
  Staged stage(Map<String, byte[]> files) throws IOException {
    List<Path[]> moves = new ArrayList<>();
    Set<Path> dirs = new LinkedHashSet<>();
    try {
      for (Map.Entry<String, byte[]> e : files.entrySet()) {
        Path target = resolve(RepoPath.of(e.getKey()));
        Path dir = target.getParent();
        if (!Files.isDirectory(dir)) {
          Files.createDirectories(dir);
          dirs.add(dir.getParent());
        }
        Path tmp = dir.resolve("." + target.getFileName() + TMP_SUFFIX);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
          ByteBuffer b = ByteBuffer.wrap(e.getValue());
          while (b.hasRemaining()) {
            ch.write(b);
          }
        }
        moves.add(new Path[] {tmp, target});
        dirs.add(dir);
      }
      fsyncAll(moves);
    } catch (IOException | RuntimeException e) {
      for (Path[] m : moves) {
        Files.deleteIfExists(m[0]);
      }
      throw e;
    }
    return new Staged(moves, dirs);
  }

  /**
   * Concurrent fsyncs of one batch's files share the file system's journal commits, where one
   * after the other each paid for its own.
   */
  private void fsyncAll(List<Path[]> moves) throws IOException {
    forEach(moves, m -> fsync(m[0]));
  }

  private interface IoStep {
    void run(Path[] move) throws IOException;
  }

  /** Runs one I/O step per file, concurrently when there are several. */
  private void forEach(List<Path[]> moves, IoStep step) throws IOException {
    if (moves.size() == 1) {
      step.run(moves.get(0));
      return;
    }
    List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
    for (Path[] m : moves) {
      fs.add(syncers.submit(() -> {
        step.run(m);
        return null;
      }));
    }
    IOException first = null;
    for (java.util.concurrent.Future<?> f : fs) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted during file I/O");
      } catch (java.util.concurrent.ExecutionException e) {
        if (first == null) {
          first = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private static void fsync(Path p) throws IOException {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
      ch.force(false);
    }
  }

  private final java.util.concurrent.ExecutorService syncers = java.util.concurrent.Executors.newFixedThreadPool(4, r -> {
    Thread t = new Thread(r, "memoryd-fsync");
    t.setDaemon(true);
    return t;
  });

  /** Temp files of {@link #stage}, waiting to be renamed into place. */
  final class Staged {
    private final List<Path[]> moves;
    private final Set<Path> dirs;

    private Staged(List<Path[]> moves, Set<Path> dirs) {
      this.moves = moves;
      this.dirs = dirs;
    }

    void publish() throws IOException {
      publish(Map.of(), p -> { });
    }

    /**
     * Renames the temp files into place, except where the file no longer holds what the writer
     * based its change on ({@code expected}, by repository path): like JGit's FileSnapshot check,
     * it tells a concurrent save by a human from the daemon's own state, and the human's save wins.
     */
    void publish(Map<String, Optional<String>> expected, java.util.function.Consumer<String> skipped) throws IOException {
      // Any order is safe (the ledger already holds every line these files reflect and recovery
      // redoes what a crash cut short); one after the other measured no slower than concurrent.
      for (Path[] m : moves) {
        String rel = root.relativize(m[1]).toString().replace('\\', '/');
        Optional<String> want = expected.get(rel);
        if (want != null && !want.equals(readIfFile(m[1]))) {
          Files.deleteIfExists(m[0]);
          skipped.accept(rel);
          continue;
        }
        try {
          Files.move(m[0], m[1], StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException ex) {
          throw new IOException("the file system of " + root + " cannot rename atomically", ex);
        }
      }
      for (Path d : dirs) {
        fsyncDir(d);
      }
    }

    void abort() throws IOException {
      for (Path[] m : moves) {
        Files.deleteIfExists(m[0]);
      }
    }
  }

  private static Optional<String> readIfFile(Path f) throws IOException {
    try {
      return Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
          ? Optional.of(Files.readString(f, StandardCharsets.UTF_8)) : Optional.empty();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** Removes temp files a killed writer left beside memory files. */
  void removeTempFiles() throws IOException {
    for (String top : new String[] {"users", ".slices"}) {
      Path d = root.resolve(top);
      if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      try (java.util.stream.Stream<Path> s = Files.walk(d)) {
        for (Path p : (Iterable<Path>) s::iterator) {
          if (p.getFileName().toString().endsWith(TMP_SUFFIX) && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            Files.delete(p);
          }
        }
      }
    }
  }

  static void fsyncDir(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
