package dev.memoryd.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A write-ahead copy of the lines a chain is about to append, kept outside the repository so
 * that forcing them to disk needs no lock that git commands take. The writer forces the lines
 * here first, then appends them to the segment file (visible to git) without waiting for the
 * disk, and forces the segment before it answers anyone. A crash in between leaves the lines
 * here; {@link Chain#applyJournal} puts them back at the end of the chain when it still ends
 * where the journal began, and ignores the journal otherwise.
 *
 * <p>Format: one header line (JSON: {@code journal}, {@code branch}, {@code base_seq},
 * {@code base_hash}, {@code lines}), then the lines verbatim. An empty file holds nothing. A torn
 * or unreadable journal never reached its force, so nothing it holds was acknowledged: it is
 * ignored.
 *
 * <p><b>Thread-safety:</b> single writer, like the chain it copies. <b>Durability:</b>
 * {@link #write} returns once the lines are on disk; {@link #clear} forgets them (forced only
 * when asked: a stale journal is harmless once the segment holds its lines, since the chain no
 * longer ends where it began).
 */
public final class Journal implements Closeable {
    private static final int VERSION = 1;

    private final Path file;
    private FileChannel ch;
    /** The file's identity when opened (its file key), to tell it was removed or replaced. */
    private Object opened;

    private boolean holds;

    private Journal(Path file) {
        this.file = file;
    }

    /** Opens (creating it and its directory when missing) the journal at {@code file}. */
    public static Journal open(Path file) throws IOException {
        Journal j = new Journal(file.toAbsolutePath().normalize());
        Path dir = j.file.getParent();
        boolean existed = Files.exists(j.file);
        Files.createDirectories(dir);
        j.ch = FileChannel.open(j.file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        if (!existed) {
            Layout.fsyncDir(dir);
        }
        j.opened = fileKey(j.file);
        j.holds = j.ch.size() > 0;
        return j;
    }

    private static Object fileKey(Path f) throws IOException {
        try {
            return Files.readAttributes(f, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
        } catch (NoSuchFileException gone) {
            return null;
        }
    }

    /**
     * Opens the journal's file again when it is no longer the one open (removed with its directory
     * by a {@code git clean -fdx}, or replaced): lines forced to a file no one can find after a
     * crash would stand in for nothing. The directory is made again private (0700 where POSIX).
     */
    private void reopenIfGone() throws IOException {
        Object now = fileKey(file);
        if (now != null && now.equals(opened)) {
            return;
        }
        ch.close();
        Path dir = file.getParent();
        if (!Files.isDirectory(dir)) {
            if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Files.createDirectories(
                        dir,
                        java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                                java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectories(dir);
            }
        }
        ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        Layout.fsyncDir(dir);
        opened = fileKey(file);
        holds = ch.size() > 0;
    }

    /**
     * Opens the journal at {@code file} for {@code chain}'s writer, first appending to the chain
     * (forced) what a writer that stopped between its journal and its segment left there, and
     * saying so in {@code notes}.
     *
     * @throws IllegalStateException if the journal's lines continue the chain but do not verify
     */
    public static Journal openFor(Path file, Chain chain, List<String> notes) throws IOException {
        Optional<Entry> left = read(file);
        if (left.isPresent()) {
            int n = chain.applyJournal(left.get());
            if (n > 0) {
                notes.add("the ledger of branch " + chain.branch() + " took back " + n
                        + " line(s) its journal held (the writer stopped before forcing them)");
            }
        }
        Journal j = open(file);
        j.clear(true);
        return j;
    }

    /** The journal's file. */
    public Path file() {
        return file;
    }

    /** Replaces what the journal holds with {@code lines} on top of {@code base}, forced to disk. */
    void write(BranchName branch, long baseSeq, String baseHash, List<byte[]> lines) throws IOException {
        ObjectNode h = LineCodec.JSON.createObjectNode();
        h.put("journal", VERSION);
        h.put("branch", branch.value());
        h.put("base_seq", baseSeq);
        h.put("base_hash", baseHash);
        h.put("lines", lines.size());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(LineCodec.JSON.writeValueAsBytes(h));
        out.write('\n');
        for (byte[] l : lines) {
            out.writeBytes(l);
        }
        reopenIfGone();
        ByteBuffer b = ByteBuffer.wrap(out.toByteArray());
        holds = true; // from the first byte on: a failed write may still leave a readable journal
        long pos = 0;
        while (b.hasRemaining()) {
            pos += ch.write(b, pos);
        }
        ch.truncate(pos);
        ch.force(false);
    }

    /** Forgets what the journal holds; {@code force}: on disk before returning. */
    public void clear(boolean force) throws IOException {
        if (!holds) {
            return;
        }
        ch.truncate(0);
        if (force) {
            ch.force(false);
        }
        holds = false;
    }

    /** Lines a journal holds and the chain state they follow. */
    public record Entry(BranchName branch, long baseSeq, String baseHash, List<byte[]> lines) {
        public Entry {
            Objects.requireNonNull(branch, "branch");
            Objects.requireNonNull(baseHash, "baseHash");
            lines = List.copyOf(lines);
        }

        /** The seq of the last line it holds. */
        public long lastSeq() {
            return baseSeq + lines.size();
        }
    }

    /** What the journal at {@code file} holds: empty when there is none, it is empty, or it is torn. */
    public static Optional<Entry> read(Path file) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        int nl = indexOf(bytes, 0);
        if (nl < 0) {
            return Optional.empty();
        }
        JsonNode h;
        try {
            h = LineCodec.parse(bytes, 0, nl);
        } catch (IOException e) {
            return Optional.empty();
        }
        if (h.path("journal").asInt() != VERSION
                || !h.path("branch").isTextual()
                || !h.path("base_hash").isTextual()) {
            return Optional.empty();
        }
        int want = h.path("lines").asInt(-1);
        List<byte[]> lines = new ArrayList<>();
        int off = nl + 1;
        while (off < bytes.length) {
            int end = indexOf(bytes, off);
            if (end < 0) {
                return Optional.empty(); // torn: never forced, never acknowledged
            }
            lines.add(java.util.Arrays.copyOfRange(bytes, off, end + 1));
            off = end + 1;
        }
        if (lines.size() != want) {
            return Optional.empty();
        }
        BranchName branch;
        try {
            branch = new BranchName(h.path("branch").asText());
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return Optional.of(new Entry(
                branch, h.path("base_seq").asLong(), h.path("base_hash").asText(), lines));
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }

    @Override
    public String toString() {
        return "Journal[" + file + "]";
    }
}
