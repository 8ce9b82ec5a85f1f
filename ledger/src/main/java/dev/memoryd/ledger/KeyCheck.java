package dev.memoryd.ledger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Whether a key ring is the one a ledger on disk was written with, and the two rules that follow
 * from it: a key is made only for a ledger with no line yet ({@link #createForNewLedger}), and a
 * ledger is appended to only with a key that authenticates it ({@link #loadFor}). A line signed
 * with another key would break every chain it joins for good, and {@code ledger verify} would
 * report it as a changed line.
 *
 * <p>A ring authenticates a ledger when the ledger has no line yet, or when the first or the last
 * complete line of some chain verifies with it and it holds the key version every chain's last
 * line names. A chain whose checked lines fail beside one whose lines verify was changed or came
 * from another root; {@link Verifier} reports that line by line, and it says nothing about the key.
 *
 * <p>Reads each chain's first line and its last complete one, not the segments around them
 * (a daemon's start checks before it takes the root's lock and again as it opens the root);
 * changes nothing but the key file {@link #createForNewLedger} makes (a torn final line is passed
 * over, not cut). Stateless; safe from any thread.
 */
public final class KeyCheck {
    /** How much of a segment is read at a time: most lines are shorter, a conversation's are not. */
    static final int CHUNK = 64 * 1024;

    private KeyCheck() {}

    /**
     * Thrown before anything is written when the key file is not the one a root's ledger was written
     * with ({@link #authenticates}): lines signed with it would fail verification for good.
     */
    public static final class WrongKeyFile extends IllegalStateException {
        private final Path file;

        public WrongKeyFile(Path file, Path ledgerDir, String why) {
            super("the key file " + file + " is not the one the ledger in " + ledgerDir + " was written with (" + why
                    + "): point --key-file or MEMORYD_KEY_FILE at that key; nothing was written");
            this.file = file;
        }

        /** The key file that was read. */
        public Path file() {
            return file;
        }
    }

    /**
     * Loads the key file, which must exist and must authenticate the ledger at {@code ledgerDir}
     * ({@link #authenticates}): what every command that appends to a ledger opens it with.
     *
     * @throws KeyRing.MissingKeyFile if there is no file at {@code keyFile}
     * @throws WrongKeyFile if it is not the key the ledger was written with
     */
    public static KeyRing loadFor(Path keyFile, Path ledgerDir) {
        KeyRing keys = KeyRing.loadExisting(keyFile);
        Optional<String> why = mismatch(ledgerDir, keys);
        if (why.isPresent()) {
            throw new WrongKeyFile(keyFile, ledgerDir, why.get());
        }
        return keys;
    }

    /**
     * Makes the key file when it is missing and the ledger at {@code ledgerDir} has no line yet (a
     * new root's first key); returns whether it made one.
     *
     * @throws KeyRing.MissingKeyFile if it is missing and the ledger has lines: a new key could not verify them
     */
    public static boolean createForNewLedger(Path keyFile, Path ledgerDir, SecureRandom random) {
        if (Files.exists(keyFile, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        if (KeyCheck.hasLines(ledgerDir)) {
            throw new KeyRing.MissingKeyFile(keyFile);
        }
        KeyRing.loadOrCreate(keyFile, random);
        return true;
    }

    /** Whether {@code keys} authenticates the ledger at {@code ledgerDir} (see the class comment). */
    public static boolean authenticates(Path ledgerDir, KeyRing keys) {
        return mismatch(ledgerDir, keys).isEmpty();
    }

    /**
     * Why {@code keys} does not authenticate the ledger at {@code ledgerDir}, or empty when it does:
     * no chain's first or last line verifies with it, or it lacks the key version a chain's last
     * line names (a key file copied before a rotation: lines it signed would use a retired version).
     */
    public static Optional<String> mismatch(Path ledgerDir, KeyRing keys) {
        boolean anyLine = false;
        boolean anyVerified = false;
        for (Map.Entry<BranchName, TreeMap<Long, Path>> chain :
                Layout.discover(ledgerDir, new ArrayList<>()).entrySet()) {
            List<byte[]> lines = endLines(chain.getValue());
            if (lines.isEmpty()) {
                continue;
            }
            anyLine = true;
            int version = version(lines.get(lines.size() - 1));
            if (version > 0 && !keys.hasVersion(version)) {
                return Optional.of("it does not hold key version " + version + ", which the last line of chain "
                        + chain.getKey() + " is signed with; was the key rotated after this file was copied?");
            }
            for (byte[] line : lines) {
                if (!anyVerified && verifies(line, keys)) {
                    anyVerified = true;
                }
            }
        }
        return anyLine && !anyVerified
                ? Optional.of("no chain's first or last line verifies with it")
                : Optional.empty();
    }

    /** Whether any chain under {@code ledgerDir} has a line (a key made now could not verify it). */
    public static boolean hasLines(Path ledgerDir) {
        for (TreeMap<Long, Path> segments :
                Layout.discover(ledgerDir, new ArrayList<>()).values()) {
            for (Path f : segments.values()) {
                try {
                    if (Files.size(f) > 0) {
                        return true;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read ledger segment " + f, e);
                }
            }
        }
        return false;
    }

    /** The chain's first and last complete lines (one when they are the same), each without its newline. */
    private static List<byte[]> endLines(TreeMap<Long, Path> segments) {
        List<byte[]> out = new ArrayList<>(2);
        for (Path f : segments.values()) {
            byte[] first = firstLine(f);
            if (first != null) {
                out.add(first);
                break;
            }
        }
        for (Path f : segments.descendingMap().values()) {
            byte[] last = lastLine(f);
            if (last != null) {
                if (out.isEmpty() || !java.util.Arrays.equals(out.get(0), last)) {
                    out.add(last);
                }
                break;
            }
        }
        return out;
    }

    /** The file's first line if it ends with a newline (without it), else null; reads no further. */
    private static byte[] firstLine(Path f) {
        try (java.io.InputStream in = Files.newInputStream(f)) {
            java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[CHUNK];
            for (int n = in.read(buf); n > 0; n = in.read(buf)) {
                int end = SegmentLines.lineEnd(buf, 0, n);
                line.write(buf, 0, end);
                if (end < n) {
                    return line.toByteArray();
                }
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read ledger segment " + f, e);
        }
    }

    /**
     * The file's last line that ends with a newline (without it), read from the end backwards a
     * chunk at a time, or null when no line ends with one. A torn final line is passed over.
     */
    private static byte[] lastLine(Path f) {
        try (FileChannel ch = FileChannel.open(f)) {
            long end = -1; // the last newline's offset
            long start = 0; // the offset after the newline before it, or 0
            byte[] buf = new byte[CHUNK];
            for (long to = ch.size(); to > 0; ) {
                long from = Math.max(0, to - CHUNK);
                int n = (int) (to - from);
                ByteBuffer bb = ByteBuffer.wrap(buf, 0, n);
                while (bb.hasRemaining()) {
                    if (ch.read(bb, from + bb.position()) < 0) {
                        throw new IOException("the segment shrank while it was read");
                    }
                }
                for (int i = n - 1; i >= 0; i--) {
                    if (buf[i] != '\n') {
                        continue;
                    }
                    if (end < 0) {
                        end = from + i;
                    } else {
                        start = from + i + 1;
                        to = 0;
                        break;
                    }
                }
                to = to == 0 ? 0 : from;
            }
            if (end < 0) {
                return null;
            }
            ByteBuffer line = ByteBuffer.allocate(Math.toIntExact(end - start));
            while (line.hasRemaining()) {
                if (ch.read(line, start + line.position()) < 0) {
                    throw new IOException("the segment shrank while it was read");
                }
            }
            return line.array();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read ledger segment " + f, e);
        }
    }

    /** The key version a line names, or 0 when it cannot be read. */
    private static int version(byte[] line) {
        try {
            return LineCodec.peek(line, 0, line.length).saltVersion();
        } catch (IOException | RuntimeException unreadable) {
            return 0;
        }
    }

    private static boolean verifies(byte[] line, KeyRing keys) {
        LineCodec.Peek p;
        try {
            p = LineCodec.peek(line, 0, line.length);
        } catch (IOException | RuntimeException unreadable) {
            return false; // not a line any key signed
        }
        if (!keys.hasVersion(p.saltVersion())) {
            return false;
        }
        return LineCodec.verify(keys.lineMac(p.saltVersion()), line, 0, line.length, p.lineHash(), () -> {
            try {
                return Event.fromJson(LineCodec.parse(line, 0, line.length));
            } catch (IOException | RuntimeException e) {
                return null;
            }
        });
    }
}
