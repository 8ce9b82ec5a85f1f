package dev.memoryd.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.crypto.Mac;

/**
 * Re-verifies a ledger from its files and the key ring alone (read-only; never repairs).
 *
 * <p>Each chain's segment files are walked in segment order as one sequence of lines (segments
 * link by {@code prev} across files; the verifier does not depend on the segment size). For each
 * line, the checks run in this order and the first failure is the chain's problem:
 * <ol>
 *   <li><b>truncated</b>: the line does not end with {@code \n} (cut mid-line).
 *   <li><b>malformed</b>: not JSON, or not a well-formed event ({@link Event#fromJson}: a member
 *       missing, unknown or mistyped), or {@code integrity.algo} is not {@code HMAC-SHA256}.
 *   <li><b>unknown_key_version</b>: the key ring has no key for {@code integrity.salt_version}.
 *   <li><b>spliced</b>: the line's {@code chain} differs from the chain id of the chain's first
 *       line (with or without a valid HMAC: a line from another ledger signed with the same key is
 *       still detected).
 *   <li><b>wrong_key</b>: the HMAC fails on the chain's first line and also on its second (or
 *       there is no second line): no line authenticates, so the key is wrong, not the data. (A
 *       one-line chain with a changed line is therefore reported as wrong_key.)
 *   <li><b>changed</b>: any other HMAC mismatch — the line's bytes were altered.
 *   <li><b>removed</b>: valid HMAC, {@code seq} jumps forward past the expected one, and the
 *       expected seq does not occur anywhere later in the chain.
 *   <li><b>reordered</b>: valid HMAC and either {@code seq} jumps forward while the expected seq
 *       occurs later in the chain, or {@code seq} goes backwards to a seq whose earlier line had a
 *       different hash.
 *   <li><b>duplicated</b>: valid HMAC and {@code seq} goes backwards to a seq already seen with the
 *       identical {@code line_hash}.
 *   <li><b>broken_prev</b>: valid HMAC, {@code seq} as expected, but {@code prev} is not the
 *       previous line's {@code line_hash} (64 zeros for seq 1).
 * </ol>
 * After a chain's last line, an expected head (from Git commit trailers) is checked:
 * <b>truncated</b> if its seq is beyond the last line (whole trailing lines, or the whole chain,
 * are missing; reported at the line number just past the last file's end), <b>changed</b> if the
 * line with that seq has a different {@code line_hash}. When every chain verifies, the links between
 * chains are checked: a {@code branch_fork} or {@code branch_merge} line's {@code payload.link}
 * ({@code {branch, seq, line_hash}}) must name a line of that branch's chain with that seq and
 * hash, else <b>broken_link</b> at the linking line. A chain the ledger directory lacks, or holds
 * short of the linked seq, is read from the commit the linking line names ({@link CommittedChains})
 * and checked in full as above before its line counts ({@link LinkCheck}). Files that are not
 * {@code <branch>/<4 digits>/<8 digits>.ndjson} are ignored.
 *
 * <p>Cost: one pass over the bytes; per line one streaming JSON scan (no tree: only seq, chain
 * and integrity are read) and one HMAC over the line as stored (its canonical form; only a line
 * that fails is parsed strictly or re-serialized). Memory: 4 bytes per line of
 * the largest chain (hash fingerprints for duplicate detection) plus one segment.
 *
 * <p>Thread-safety: stateless; concurrent calls are safe. Reading while a {@link Chain} appends
 * may see a partially written last line and report it as truncated.
 */
public final class Verifier {
    /** The op of the ledger line that records a key rotation; its payload names the retired version. */
    public static final String KEY_ROTATE = "key_rotate";
    /** Ops of lines linking one chain to another: a branch's first line, and a merge. */
    public static final java.util.Set<String> LINK_OPS = java.util.Set.of("branch_fork", "branch_merge");

    private Verifier() {}

    /**
     * Verifies every chain under {@code ledgerDir}.
     *
     * @param expectedHeads heads recorded in Git commit trailers, per branch; may be empty
     * @throws UncheckedIOException if a file cannot be read
     */
    public static VerifyResult verify(Path ledgerDir, KeyRing keys, Map<BranchName, Head> expectedHeads) {
        return verify(ledgerDir, keys, expectedHeads, n -> {});
    }

    /**
     * As {@link #verify(Path, KeyRing, Map)}, telling {@code progress} the number of lines
     * verified so far every {@value #PROGRESS_EVERY} lines and at the end (for a terminal).
     */
    public static VerifyResult verify(
            Path ledgerDir,
            KeyRing keys,
            Map<BranchName, Head> expectedHeads,
            java.util.function.LongConsumer progress) {
        return verify(ledgerDir, keys, expectedHeads, progress, CommittedChains.NONE);
    }

    /**
     * As {@link #verify(Path, KeyRing, Map, java.util.function.LongConsumer)}, reading a linked
     * chain the ledger directory lacks (or holds short of the linked line) from {@code history}:
     * the tree of the commit the linking line names.
     */
    public static VerifyResult verify(
            Path ledgerDir,
            KeyRing keys,
            Map<BranchName, Head> expectedHeads,
            java.util.function.LongConsumer progress,
            CommittedChains history) {
        Path dir = ledgerDir.toAbsolutePath().normalize();
        Map<BranchName, TreeMap<Long, Path>> chains = Layout.discover(dir, new ArrayList<>());
        TreeSet<BranchName> branches = new TreeSet<>(chains.keySet());
        branches.addAll(expectedHeads.keySet());
        Map<Integer, Mac> macs = new HashMap<>();
        Map<BranchName, Long> perChain = new TreeMap<>();
        long total = 0;
        Problem first = null;
        List<Link> links = new ArrayList<>();
        Map<BranchName, Head> ends = new HashMap<>();
        for (BranchName b : branches) {
            TreeMap<Long, Path> segs = chains.getOrDefault(b, new TreeMap<>());
            ChainCheck check = new ChainCheck(
                    dir, "", b, new ArrayList<>(segs.values()), Verifier::read, keys, macs, expectedHeads.get(b));
            check.progress = progress;
            check.before = total;
            Problem p = check.run();
            perChain.put(b, check.lines);
            total += check.lines;
            links.addAll(check.links);
            if (check.end != null) {
                ends.put(b, check.end);
            }
            if (first == null && p != null) {
                first = p;
            }
        }
        progress.accept(total);
        LinkCheck linkCheck = new LinkCheck(dir, chains, ends, keys, macs, history);
        if (first == null) {
            first = linkCheck.run(links);
        }
        if (first == null) {
            return new VerifyResult(
                    true,
                    total,
                    null,
                    0,
                    null,
                    null,
                    "All " + total + " lines in " + perChain.size() + " chains verify" + linkCheck.fromHistory() + ".",
                    perChain);
        }
        return new VerifyResult(false, total, first.file, first.line, first.seq, first.reason, first.message, perChain);
    }

    /**
     * Finds the event with id {@code id}. Scans segment files (newest first per chain), matching
     * raw bytes before parsing, so it is O(ledger size) in the worst case; callers that resolve
     * often should keep their own index.
     */
    static final int PROGRESS_EVERY = 50_000;

    public static Optional<Event> find(Path ledgerDir, EventId id) {
        Path dir = ledgerDir.toAbsolutePath().normalize();
        byte[] needle = ("\"event_id\":\"" + id.value() + "\"").getBytes(StandardCharsets.US_ASCII);
        for (TreeMap<Long, Path> segs : Layout.discover(dir, new ArrayList<>()).values()) {
            for (Path f : segs.descendingMap().values()) {
                byte[] b = read(f);
                int from = 0;
                int at;
                while ((at = LineCodec.indexOf(b, from, b.length - from, needle)) >= 0) {
                    int start = at;
                    while (start > 0 && b[start - 1] != '\n') {
                        start--;
                    }
                    int end = at;
                    while (end < b.length && b[end] != '\n') {
                        end++;
                    }
                    try {
                        Event e = Event.fromJson(LineCodec.parse(b, start, end - start));
                        if (e.eventId().equals(id.value())) {
                            return Optional.of(e);
                        }
                    } catch (IOException | IllegalArgumentException ignored) {
                        // not this line (malformed, or the bytes sat inside a payload); keep looking
                    }
                    from = end;
                }
            }
        }
        return Optional.empty();
    }

    static byte[] read(Path f) {
        try {
            return Files.readAllBytes(f);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f, e);
        }
    }

    /** Where the first problem is: {@code file} as {@link VerifyResult#firstBadFile} reports it. */
    record Problem(String file, long line, Long seq, String reason, String message) {}

    /**
     * A line ({@code file}, {@code line}, {@code seq}) linking to line {@code toSeq} of chain
     * {@code to}; {@code commit}: the commit its payload names (merged or forked from), or null.
     */
    record Link(String file, long line, long seq, String op, String to, long toSeq, String toHash, String commit) {}

    /** One line of a chain as stored: {@code buf[start, end)}, without its newline. */
    record Line(Path file, int lineNo, byte[] buf, int start, int end, boolean newline) {}

    /** A cursor over a chain's lines across its segment files; {@link #copy} for look-ahead. */
    static final class Walk {
        private final List<Path> files;
        private final java.util.function.Function<Path, byte[]> reader;
        private int fileIdx;
        private byte[] bytes;
        private int off;
        private int lineNo;

        Walk(List<Path> files, java.util.function.Function<Path, byte[]> reader) {
            this.files = files;
            this.reader = reader;
        }

        Walk copy() {
            Walk w = new Walk(files, reader);
            w.fileIdx = fileIdx;
            w.bytes = bytes;
            w.off = off;
            w.lineNo = lineNo;
            return w;
        }

        Line next() {
            while (fileIdx < files.size()) {
                if (bytes == null) {
                    bytes = reader.apply(files.get(fileIdx));
                    off = 0;
                    lineNo = 0;
                }
                if (off >= bytes.length) {
                    fileIdx++;
                    bytes = null;
                    continue;
                }
                int start = off;
                int nl = start;
                while (nl < bytes.length && bytes[nl] != '\n') {
                    nl++;
                }
                off = nl + 1;
                lineNo++;
                return new Line(files.get(fileIdx), lineNo, bytes, start, nl, nl < bytes.length);
            }
            return null;
        }
    }

    /** One chain's walk, from its first line to its last (or its first problem). */
    static final class ChainCheck {
        private final Path ledgerDir;
        private final String origin;
        private final BranchName branch;
        private final List<Path> files;
        private final java.util.function.Function<Path, byte[]> reader;
        private final KeyRing keys;
        private final Map<Integer, Mac> macs;
        private final Head expected;
        long lines;
        java.util.function.LongConsumer progress = n -> {};
        long before;
        final List<Link> links = new ArrayList<>();
        /** The last line's seq and hash once the chain verified; null for an empty chain or a problem. */
        Head end;
        /** When set, every line's hash by seq (for a chain read from history, which links look up). */
        Map<Long, String> hashes;

        private int[] fingerprints = new int[1024];
        /** Key version → seq of the authenticated rotation line that retired it. */
        private final Map<Integer, Long> retired = new HashMap<>();

        /**
         * {@code origin}: what {@link VerifyResult#firstBadFile} puts before a file's path ("" for
         * the ledger directory, {@code <commit>:} for a commit's tree); {@code reader} reads a file.
         */
        ChainCheck(
                Path ledgerDir,
                String origin,
                BranchName branch,
                List<Path> files,
                java.util.function.Function<Path, byte[]> reader,
                KeyRing keys,
                Map<Integer, Mac> macs,
                Head expected) {
            this.ledgerDir = ledgerDir;
            this.origin = origin;
            this.branch = branch;
            this.files = files;
            this.reader = reader;
            this.keys = keys;
            this.macs = macs;
            this.expected = expected;
        }

        /** A parsed line, or the reason it cannot be used. */
        record Parsed(LineCodec.Peek event, String malformed) {}

        static Parsed parse(Line l) {
            try {
                LineCodec.Peek e = LineCodec.peek(l.buf(), l.start(), l.end() - l.start());
                if (!Integrity.ALGO.equals(e.algo())) {
                    return new Parsed(null, "integrity.algo is \"" + e.algo() + "\", not HMAC-SHA256");
                }
                return new Parsed(e, null);
            } catch (IOException | IllegalArgumentException ex) {
                return new Parsed(
                        null,
                        ex.getMessage() == null
                                ? ex.toString()
                                : ex.getMessage().split("\n")[0]);
            }
        }

        /** The link an authenticated fork or merge line records in {@code payload.link}, if any. */
        private Link link(Line l, LineCodec.Peek e) {
            try {
                JsonNode payload =
                        LineCodec.parse(l.buf(), l.start(), l.end() - l.start()).path("payload");
                JsonNode k = payload.path("link");
                if (!k.isObject()) {
                    return null; // a fork from a commit no chain records (the repository's first commit)
                }
                JsonNode named = payload.path("merge").path("from_commit");
                if (!named.isTextual()) {
                    named = payload.path("fork").path("from_commit");
                }
                return new Link(
                        file(l),
                        l.lineNo(),
                        e.seq(),
                        e.op(),
                        k.path("branch").asText(""),
                        k.path("seq").asLong(-1),
                        k.path("line_hash").asText(""),
                        named.isTextual() ? named.asText() : null);
            } catch (IOException ex) {
                return null;
            }
        }

        /** The version a key_rotate line retires (its payload.retired), or 0. */
        private static int retiredVersion(Line l) {
            try {
                return LineCodec.parse(l.buf(), l.start(), l.end() - l.start())
                        .path("payload")
                        .path("retired")
                        .asInt(0);
            } catch (IOException e) {
                return 0;
            }
        }

        private static String strictProblem(Line l) {
            try {
                Event.fromJson(LineCodec.parse(l.buf(), l.start(), l.end() - l.start()));
                return null;
            } catch (IOException | IllegalArgumentException ex) {
                return ex.getMessage() == null ? ex.toString() : ex.getMessage().split("\n")[0];
            }
        }

        private boolean macOk(Line l, LineCodec.Peek e) {
            Mac mac = macs.computeIfAbsent(e.saltVersion(), keys::lineMac);
            return LineCodec.verify(mac, l.buf(), l.start(), l.end() - l.start(), e.lineHash(), () -> {
                try {
                    return Event.fromJson(LineCodec.parse(l.buf(), l.start(), l.end() - l.start()));
                } catch (IOException | IllegalArgumentException ex) {
                    return null; // not an event at all: the HMAC cannot match
                }
            });
        }

        private Problem problem(Line l, Long seq, String reason, String message) {
            return new Problem(file(l), l.lineNo(), seq, reason, message);
        }

        private String file(Line l) {
            return origin + Layout.relative(ledgerDir, l.file());
        }

        private String where(Line l) {
            return file(l) + " line " + l.lineNo();
        }

        Problem run() {
            Walk walk = new Walk(files, reader);
            long lastSeq = 0;
            String prevHash = Integrity.GENESIS_PREV;
            String chainId = null;
            String hashAtExpected = null;
            Line atExpected = null;
            Line last = null;
            Line l;
            while ((l = walk.next()) != null) {
                lines++;
                if (lines % PROGRESS_EVERY == 0) {
                    progress.accept(before + lines);
                }
                last = l;
                if (!l.newline()) {
                    return problem(
                            l,
                            null,
                            VerifyResult.TRUNCATED,
                            where(l) + " has no trailing newline: the ledger was cut mid-line.");
                }
                Parsed p = parse(l);
                if (p.event() == null) {
                    return problem(
                            l,
                            null,
                            VerifyResult.MALFORMED,
                            where(l) + " is not a well-formed event: " + p.malformed() + ".");
                }
                LineCodec.Peek e = p.event();
                long seq = e.seq();
                int version = e.saltVersion();
                if (!keys.hasVersion(version)) {
                    return problem(
                            l,
                            seq,
                            VerifyResult.UNKNOWN_KEY_VERSION,
                            where(l) + " is signed with key version " + version
                                    + ", which the key file does not hold (it has " + keys.versions() + ").");
                }
                boolean ok = macOk(l, e);
                if (chainId != null && !chainId.equals(e.chain())) {
                    return problem(
                            l,
                            seq,
                            VerifyResult.SPLICED,
                            where(l) + " belongs to chain " + e.chain() + ", not " + chainId
                                    + (ok ? " (its HMAC is valid: it was copied from another ledger)" : "") + ".");
                }
                if (!ok) {
                    // Only a failing line pays for the strict parse that tells a damaged event
                    // (a member missing or mistyped) from one whose values were changed.
                    String strict = strictProblem(l);
                    if (strict != null) {
                        return problem(
                                l,
                                null,
                                VerifyResult.MALFORMED,
                                where(l) + " is not a well-formed event: " + strict + ".");
                    }
                    if (chainId == null && !nextAuthenticates(walk.copy())) {
                        return problem(
                                l,
                                seq,
                                VerifyResult.WRONG_KEY,
                                "No line of chain " + branch
                                        + " authenticates (the first two fail their HMAC): the key file is not the one this ledger was written with.");
                    }
                    return problem(
                            l,
                            seq,
                            VerifyResult.CHANGED,
                            where(l) + " (seq " + seq + ") fails its HMAC: its content was changed.");
                }
                if (chainId == null) {
                    chainId = e.chain();
                }
                Long retiredAt = retired.get(version);
                if (retiredAt != null) {
                    return problem(
                            l,
                            seq,
                            VerifyResult.RETIRED_KEY,
                            where(l) + " (seq " + seq + ") is signed with key version " + version
                                    + ", which the rotation at seq " + retiredAt + " retired.");
                }
                if (LINK_OPS.contains(e.op())) {
                    Link link = link(l, e);
                    if (link != null) {
                        links.add(link);
                    }
                }
                if (KEY_ROTATE.equals(e.op())) {
                    int gone = retiredVersion(l);
                    if (gone > 0) {
                        retired.put(gone, seq);
                    }
                }
                String hash = e.lineHash();
                long want = lastSeq + 1;
                if (seq > want) {
                    if (occursLater(walk.copy(), want)) {
                        return problem(
                                l,
                                seq,
                                VerifyResult.REORDERED,
                                where(l) + " has seq " + seq + " where seq " + want + " belongs, and seq " + want
                                        + " comes later: lines were reordered.");
                    }
                    return problem(
                            l,
                            seq,
                            VerifyResult.REMOVED,
                            where(l) + " has seq " + seq + " where seq " + want + " belongs: "
                                    + (seq - want == 1
                                            ? "line seq " + want + " was"
                                            : "lines seq " + want + "–" + (seq - 1) + " were")
                                    + " removed.");
                }
                if (seq < want) {
                    if (seq >= 1 && fingerprints[(int) (seq - 1)] == fingerprint(hash)) {
                        return problem(
                                l,
                                seq,
                                VerifyResult.DUPLICATED,
                                where(l) + " repeats seq " + seq
                                        + " (an identical earlier line): a line was duplicated.");
                    }
                    return problem(
                            l,
                            seq,
                            VerifyResult.REORDERED,
                            where(l) + " has seq " + seq + " after seq " + lastSeq + ": lines were reordered.");
                }
                if (!prevHash.equals(e.prev())) {
                    return problem(
                            l,
                            seq,
                            VerifyResult.BROKEN_PREV,
                            where(l) + " (seq " + seq
                                    + ") has an authentic HMAC but its prev does not match the previous line's line_hash: the chain link is broken.");
                }
                if (seq > fingerprints.length) {
                    fingerprints = Arrays.copyOf(fingerprints, fingerprints.length * 2);
                }
                fingerprints[(int) (seq - 1)] = fingerprint(hash);
                if (hashes != null) {
                    hashes.put(seq, hash);
                }
                if (expected != null && seq == expected.seq()) {
                    hashAtExpected = hash;
                    atExpected = l;
                }
                lastSeq = seq;
                prevHash = hash;
            }
            if (expected != null && expected.seq() > lastSeq) {
                Path file = last != null ? last.file() : Layout.segmentFile(Layout.chainDir(ledgerDir, branch), 0);
                long lineNo = last != null ? last.lineNo() + 1 : 1;
                return new Problem(
                        origin + Layout.relative(ledgerDir, file),
                        lineNo,
                        lastSeq + 1,
                        VerifyResult.TRUNCATED,
                        "Chain " + branch + " ends at seq " + lastSeq + " but Git records its head at seq "
                                + expected.seq() + ": trailing lines were cut off.");
            }
            if (expected != null && atExpected != null && !expected.lineHash().equals(hashAtExpected)) {
                return problem(
                        atExpected,
                        expected.seq(),
                        VerifyResult.CHANGED,
                        where(atExpected) + " (seq " + expected.seq()
                                + ") is not the line Git recorded as the head: the chain was rewritten.");
            }
            end = lastSeq == 0 ? null : new Head(lastSeq, prevHash);
            return null;
        }

        private boolean nextAuthenticates(Walk ahead) {
            Line n = ahead.next();
            if (n == null || !n.newline()) {
                return false;
            }
            Parsed p = parse(n);
            return p.event() != null && keys.hasVersion(p.event().saltVersion()) && macOk(n, p.event());
        }

        private static boolean occursLater(Walk ahead, long seq) {
            Line n;
            while ((n = ahead.next()) != null) {
                Parsed p = parse(n);
                if (p.event() != null && p.event().seq() == seq) {
                    return true;
                }
            }
            return false;
        }

        private static int fingerprint(String hash) {
            return (int) Long.parseLong(hash.substring(0, 8), 16);
        }
    }
}
