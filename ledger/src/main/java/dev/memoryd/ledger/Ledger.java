package dev.memoryd.ledger;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The event ledger of one memory root: one HMAC chain per branch, stored as
 * {@code <ledgerDir>/<branch>/<group>/<segment>.ndjson} (see {@link Chain}, docs/DESIGN.md,
 * "The ledger").
 *
 * <p>{@link #open} finds every chain and reads only the last segment of each to learn its head
 * (never the whole history). A torn final line — no trailing newline, or an unparseable last
 * line, as left by a crash mid-write — is truncated away and described in
 * {@link #recoveryNotes()}; nothing else is modified.
 *
 * <p>Thread-safety: {@link #chain}, {@link #branches} and {@link #close} are synchronized; each
 * {@link Chain} is single-writer (see its contract). One {@code Ledger} per memory root: two
 * instances writing the same directory corrupt it (the daemon's root lock prevents that).
 *
 * <p>Durability: see {@link Chain#sync()}; {@link #close()} syncs every chain.
 */
public final class Ledger implements Closeable {
    private final Path dir;
    private final KeyRing keys;
    private final LedgerOptions options;
    private final Map<BranchName, Chain> chains = new TreeMap<>();
    private final List<String> recoveryNotes;
    private boolean readOnly;

    private Ledger(Path dir, KeyRing keys, LedgerOptions options, List<String> notes) {
        this.dir = dir;
        this.keys = keys;
        this.options = options;
        this.recoveryNotes = Collections.unmodifiableList(notes);
    }

    /**
     * Every complete line of one branch's chain, in order, read without opening the ledger for
     * writing: nothing is truncated or created, so it is safe while a daemon appends. A final
     * line without its newline (a write in progress) is skipped. Reads all segments into memory
     * lazily, one at a time.
     */
    public static java.util.Iterator<Event> readOnly(Path ledgerDir, BranchName branch) {
        java.util.TreeMap<Long, Path> segs =
                Layout.discover(ledgerDir, new java.util.ArrayList<>()).getOrDefault(branch, new java.util.TreeMap<>());
        java.util.List<Event> out = new java.util.ArrayList<>();
        for (Path f : segs.values()) {
            byte[] b;
            try {
                b = java.nio.file.Files.readAllBytes(f);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            int off = 0;
            for (int k = 0; k < b.length; k++) {
                if (b[k] == '\n') {
                    try {
                        out.add(Event.fromJson(LineCodec.parse(b, off, k - off)));
                    } catch (java.io.IOException | RuntimeException e) {
                        throw new IllegalStateException(
                                "unreadable ledger line in " + f + "; run 'memoryd ledger verify'", e);
                    }
                    off = k + 1;
                }
            }
        }
        return out.iterator();
    }

    /**
     * Opens (creating the directory if missing) the ledger at {@code ledgerDir}, normally
     * {@code <root>/ledger}.
     *
     * @throws IllegalStateException if a chain is inconsistent with {@code options.segmentLines()}
     *     or its last segment is unreadable beyond its final line
     * @throws UncheckedIOException on I/O failure
     */
    public static Ledger open(Path ledgerDir, KeyRing keys, LedgerOptions options) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(options, "options");
        Path dir = ledgerDir.toAbsolutePath().normalize();
        List<String> notes = new ArrayList<>();
        try {
            Files.createDirectories(dir);
            Ledger ledger = new Ledger(dir, keys, options, notes);
            for (Map.Entry<BranchName, TreeMap<Long, Path>> e :
                    Layout.discover(dir, notes).entrySet()) {
                ledger.chains.put(e.getKey(), Chain.load(e.getKey(), dir, keys, options, e.getValue(), notes));
            }
            return ledger;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open ledger " + dir, e);
        }
    }

    /**
     * Opens the ledger at {@code ledgerDir} for reading only (checking commands): no directory is
     * created, no torn tail is cut (one is refused with an {@link IllegalStateException}), and
     * every chain refuses appends.
     */
    public static Ledger openReadOnly(Path ledgerDir, KeyRing keys, LedgerOptions options) {
        Path dir = ledgerDir.toAbsolutePath().normalize();
        List<String> notes = new ArrayList<>();
        Ledger ledger = new Ledger(dir, keys, options, notes);
        ledger.readOnly = true;
        if (!Files.isDirectory(dir)) {
            return ledger;
        }
        try {
            for (Map.Entry<BranchName, TreeMap<Long, Path>> e :
                    Layout.discover(dir, notes).entrySet()) {
                ledger.chains.put(e.getKey(), Chain.load(e.getKey(), dir, keys, options, e.getValue(), notes, true));
            }
            return ledger;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read ledger " + dir, e);
        }
    }

    /** The chain of {@code branch}, created (empty, no files yet) on first use. */
    public synchronized Chain chain(BranchName branch) {
        return chains.computeIfAbsent(branch, b -> {
            Chain c = Chain.empty(b, dir, keys, options);
            if (readOnly) {
                c.markReadOnly();
            }
            return c;
        });
    }

    /** Branches with a chain: found on disk at open, or requested since. Sorted. */
    public synchronized Set<BranchName> branches() {
        return Collections.unmodifiableSet(new TreeSet<>(chains.keySet()));
    }

    /** Heads of every known chain, for Git commit trailers and {@link Verifier#verify}. */
    public synchronized Map<BranchName, Head> heads() {
        Map<BranchName, Head> out = new TreeMap<>();
        chains.forEach((b, c) -> out.put(b, c.head()));
        return Collections.unmodifiableMap(out);
    }

    /**
     * Re-reads from disk the chains {@code foreign} accepts: chains other roots write, whose files
     * a sync replaced. New ones appear; known ones learn their new lines. Never call it for a
     * chain this ledger appends to.
     */
    public synchronized void refresh(java.util.function.Predicate<BranchName> foreign) {
        List<String> notes = new ArrayList<>();
        try {
            for (Map.Entry<BranchName, TreeMap<Long, Path>> e :
                    Layout.discover(dir, notes).entrySet()) {
                if (foreign.test(e.getKey())) {
                    Chain old = chains.put(e.getKey(), Chain.load(e.getKey(), dir, keys, options, e.getValue(), notes));
                    if (old != null) {
                        old.close();
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot re-read ledger " + dir, e);
        }
    }

    /** What {@link #open} repaired (one sentence each); empty when nothing was. */
    public List<String> recoveryNotes() {
        return recoveryNotes;
    }

    /** The ledger directory (absolute). */
    public Path dir() {
        return dir;
    }

    /** Syncs and closes every chain. */
    @Override
    public synchronized void close() {
        for (Chain c : chains.values()) {
            c.close();
        }
    }
}
