package dev.memoryd.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;

/**
 * One chain's walk, from its first line to its last (or its first problem): the per-line checks
 * of {@link Verifier}, in the order its Javadoc gives, then the expected head. Collects on the way
 * the links its fork and merge lines record, for {@link LinkCheck}.
 *
 * <p>Not thread-safe: one instance checks one chain once ({@link #run}). Reads files only through
 * the reader given; writes nothing.
 */
final class ChainCheck {
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
    final List<Verifier.Link> links = new ArrayList<>();
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

    static Parsed parse(LineWalk.Line l) {
        try {
            LineCodec.Peek e = LineCodec.peek(l.buf(), l.start(), l.end() - l.start());
            if (!Integrity.ALGO.equals(e.algo())) {
                return new Parsed(null, "integrity.algo is \"" + e.algo() + "\", not HMAC-SHA256");
            }
            return new Parsed(e, null);
        } catch (IOException | IllegalArgumentException ex) {
            return new Parsed(
                    null,
                    ex.getMessage() == null ? ex.toString() : ex.getMessage().split("\n")[0]);
        }
    }

    /** The link an authenticated fork or merge line records in {@code payload.link}, if any. */
    private Verifier.Link link(LineWalk.Line l, LineCodec.Peek e) {
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
            return new Verifier.Link(
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
    private static int retiredVersion(LineWalk.Line l) {
        try {
            return LineCodec.parse(l.buf(), l.start(), l.end() - l.start())
                    .path("payload")
                    .path("retired")
                    .asInt(0);
        } catch (IOException e) {
            return 0;
        }
    }

    private static String strictProblem(LineWalk.Line l) {
        try {
            Event.fromJson(LineCodec.parse(l.buf(), l.start(), l.end() - l.start()));
            return null;
        } catch (IOException | IllegalArgumentException ex) {
            return ex.getMessage() == null ? ex.toString() : ex.getMessage().split("\n")[0];
        }
    }

    private boolean macOk(LineWalk.Line l, LineCodec.Peek e) {
        Mac mac = macs.computeIfAbsent(e.saltVersion(), keys::lineMac);
        return LineCodec.verify(mac, l.buf(), l.start(), l.end() - l.start(), e.lineHash(), () -> {
            try {
                return Event.fromJson(LineCodec.parse(l.buf(), l.start(), l.end() - l.start()));
            } catch (IOException | IllegalArgumentException ex) {
                return null; // not an event at all: the HMAC cannot match
            }
        });
    }

    private Verifier.Problem problem(LineWalk.Line l, Long seq, String reason, String message) {
        return new Verifier.Problem(file(l), l.lineNo(), seq, reason, message);
    }

    private String file(LineWalk.Line l) {
        return origin + Layout.relative(ledgerDir, l.file());
    }

    private String where(LineWalk.Line l) {
        return file(l) + " line " + l.lineNo();
    }

    Verifier.Problem run() {
        LineWalk walk = new LineWalk(files, reader);
        long lastSeq = 0;
        String prevHash = Integrity.GENESIS_PREV;
        String chainId = null;
        String hashAtExpected = null;
        LineWalk.Line atExpected = null;
        LineWalk.Line last = null;
        LineWalk.Line l;
        while ((l = walk.next()) != null) {
            lines++;
            if (lines % Verifier.PROGRESS_EVERY == 0) {
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
                            l, null, VerifyResult.MALFORMED, where(l) + " is not a well-formed event: " + strict + ".");
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
            if (Verifier.LINK_OPS.contains(e.op())) {
                Verifier.Link link = link(l, e);
                if (link != null) {
                    links.add(link);
                }
            }
            if (Verifier.KEY_ROTATE.equals(e.op())) {
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
                            where(l) + " repeats seq " + seq + " (an identical earlier line): a line was duplicated.");
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
            return new Verifier.Problem(
                    origin + Layout.relative(ledgerDir, file),
                    lineNo,
                    lastSeq + 1,
                    VerifyResult.TRUNCATED,
                    "Chain " + branch + " ends at seq " + lastSeq + " but Git records its head at seq " + expected.seq()
                            + ": trailing lines were cut off.");
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

    private boolean nextAuthenticates(LineWalk ahead) {
        LineWalk.Line n = ahead.next();
        if (n == null || !n.newline()) {
            return false;
        }
        Parsed p = parse(n);
        return p.event() != null && keys.hasVersion(p.event().saltVersion()) && macOk(n, p.event());
    }

    private static boolean occursLater(LineWalk ahead, long seq) {
        LineWalk.Line n;
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
