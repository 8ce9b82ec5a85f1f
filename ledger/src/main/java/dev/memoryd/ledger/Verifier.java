package dev.memoryd.ledger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * <p>This class walks the chains and reports; the per-line checks of one chain are
 * {@link ChainCheck}'s, reading its lines across segment files {@link LineWalk}'s.
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

    /** How many lines are verified between two calls of the progress callback. */
    static final int PROGRESS_EVERY = 50_000;

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
}
