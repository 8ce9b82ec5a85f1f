package dev.memoryd.ledger;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import javax.crypto.Mac;

/**
 * The last step of {@link Verifier}: every {@code branch_fork} and {@code branch_merge} line's
 * {@code payload.link} must land on a line of the named chain with the recorded hash.
 *
 * <p>A linked line the ledger directory holds is looked up there (one walk per chain). Any other
 * is looked up in the chain as the commit the linking line names holds it ({@link CommittedChains}):
 * that copy is first verified in full as a chain on disk is (a problem in it is the verify's
 * problem, its file reported as {@code <commit>:ledger/...}), must agree with the directory's
 * copy where both reach and with copies read from other commits (the same hash at the shorter
 * one's last seq: each line's hash covers the previous one, so equal hashes mean equal prefixes),
 * and its own links are checked the same way. So a clone where only the branch merged into is
 * checked out verifies from its Git history alone, and a merge recorded before chains were looked
 * up there verifies as it is.
 *
 * <p>Cost: each (commit, chain) is read once; a chain read from history keeps one hash per line in
 * memory (merged branches' chains, not the checked-out one's). Not thread-safe: one per verify.
 */
final class LinkCheck {
    private final Path dir;
    private final Map<BranchName, TreeMap<Long, Path>> disk;
    private final Map<BranchName, Head> ends;
    private final KeyRing keys;
    private final Map<Integer, Mac> macs;
    private final CommittedChains history;
    /** Per chain read from history: every line's hash by seq, over all the commits read. */
    private final Map<BranchName, Copy> copies = new HashMap<>();
    /** {@code <commit> <chain>} already asked for, and the ones whose tree held the chain. */
    private final Set<String> asked = new HashSet<>();

    private final Set<String> found = new HashSet<>();
    private long historyLines;

    /** Lines of one chain read from history, seq 1 to {@code last}. */
    private static final class Copy {
        final Map<Long, String> hashes = new HashMap<>();
        long last;
    }

    /**
     * {@code disk}: the ledger directory's chains; {@code ends}: each one's last line (all of them
     * verified); {@code macs}: the verify's HMAC instances by key version.
     */
    LinkCheck(
            Path dir,
            Map<BranchName, TreeMap<Long, Path>> disk,
            Map<BranchName, Head> ends,
            KeyRing keys,
            Map<Integer, Mac> macs,
            CommittedChains history) {
        this.dir = dir;
        this.disk = disk;
        this.ends = ends;
        this.keys = keys;
        this.macs = macs;
        this.history = history;
    }

    /** The first link that does not land (or the first problem of a chain read from history), or null. */
    Verifier.Problem run(List<Verifier.Link> links) {
        List<Verifier.Link> pending = links;
        while (!pending.isEmpty()) {
            Map<BranchName, List<Verifier.Link>> onDisk = new TreeMap<>();
            List<Verifier.Link> elsewhere = new ArrayList<>();
            for (Verifier.Link l : pending) {
                BranchName to = name(l.to());
                Head end = to == null ? null : ends.get(to);
                if (end != null && l.toSeq() >= 1 && l.toSeq() <= end.seq()) {
                    onDisk.computeIfAbsent(to, k -> new ArrayList<>()).add(l);
                } else {
                    elsewhere.add(l);
                }
            }
            for (Map.Entry<BranchName, List<Verifier.Link>> e : onDisk.entrySet()) {
                Verifier.Problem p = onDisk(e.getKey(), e.getValue());
                if (p != null) {
                    return p;
                }
            }
            List<Verifier.Link> next = new ArrayList<>();
            for (Verifier.Link l : elsewhere) {
                Verifier.Problem p = inHistory(l, next);
                if (p != null) {
                    return p;
                }
            }
            pending = next;
        }
        return null;
    }

    /** For the verify's message: what was read from history, or "". */
    String fromHistory() {
        if (copies.isEmpty()) {
            return "";
        }
        return " (and " + historyLines + " lines of " + copies.size() + " linked chain"
                + (copies.size() == 1 ? "" : "s") + " read from the commits that link to them)";
    }

    private Verifier.Problem onDisk(BranchName to, List<Verifier.Link> links) {
        Set<Long> wanted = new HashSet<>();
        links.forEach(l -> wanted.add(l.toSeq()));
        Map<Long, String> hashes = new HashMap<>();
        LineWalk w = new LineWalk(new ArrayList<>(disk.get(to).values()), Verifier::read);
        LineWalk.Line line;
        while (hashes.size() < wanted.size() && (line = w.next()) != null) {
            ChainCheck.Parsed p = ChainCheck.parse(line);
            if (p.event() != null && wanted.contains(p.event().seq())) {
                hashes.put(p.event().seq(), p.event().lineHash());
            }
        }
        for (Verifier.Link l : links) {
            if (!l.toHash().equals(hashes.get(l.toSeq()))) {
                return broken(
                        l,
                        hashes.containsKey(l.toSeq()) ? "that line has another hash" : "that chain has no such line");
            }
        }
        return null;
    }

    private Verifier.Problem inHistory(Verifier.Link l, List<Verifier.Link> next) {
        BranchName to = name(l.to());
        if (to != null && l.commit() != null && !landsInCopy(l, to)) {
            String key = l.commit() + " " + to.value();
            if (asked.add(key)) {
                SortedMap<Long, byte[]> segs = history.segments(l.commit(), to);
                if (!segs.isEmpty()) {
                    found.add(key);
                    Verifier.Problem p = read(l, to, segs, next);
                    if (p != null) {
                        return p;
                    }
                }
            }
        }
        if (to != null && landsInCopy(l, to)) {
            return null;
        }
        Head end = to == null ? null : ends.get(to);
        if (l.commit() == null || to == null || history == CommittedChains.NONE) {
            return broken(l, end == null ? "there is no such chain" : "that chain has no such line");
        }
        String here = end == null
                ? "the ledger directory has no such chain"
                : "the ledger directory holds that chain only up to seq " + end.seq();
        Copy c = copies.get(to);
        String there = !found.contains(l.commit() + " " + to.value())
                ? "commit " + l.commit() + ", which the line names, is not in this repository or holds no such chain"
                : c.hashes.containsKey(l.toSeq())
                        ? "in the chain as Git history holds it, that line has another hash"
                        : "the tree of commit " + l.commit() + " holds it only up to seq " + c.last;
        return broken(l, here + ", and " + there);
    }

    private boolean landsInCopy(Verifier.Link l, BranchName to) {
        Copy c = copies.get(to);
        return c != null && l.toHash().equals(c.hashes.get(l.toSeq()));
    }

    /** Verifies chain {@code to} as {@code commit}'s tree holds it and adds it to what links may land on. */
    private Verifier.Problem read(
            Verifier.Link l, BranchName to, SortedMap<Long, byte[]> segs, List<Verifier.Link> next) {
        Map<Path, byte[]> bytes = new HashMap<>();
        List<Path> files = new ArrayList<>();
        Path chainDir = Layout.chainDir(dir, to);
        segs.forEach((n, b) -> {
            Path f = Layout.segmentFile(chainDir, n);
            files.add(f);
            bytes.put(f, b);
        });
        ChainCheck check = new ChainCheck(dir, l.commit() + ":", to, files, bytes::get, keys, macs, null);
        check.hashes = new HashMap<>();
        Verifier.Problem p = check.run();
        historyLines += check.lines;
        if (p != null) {
            return p;
        }
        if (check.end == null) {
            return null; // no lines: nothing to land on
        }
        Head end = ends.get(to);
        if (end != null && check.end.seq() >= end.seq() && !end.lineHash().equals(check.hashes.get(end.seq()))) {
            return broken(
                    l,
                    "the chain as commit " + l.commit() + " holds it differs from the ledger directory's at seq "
                            + end.seq() + " (two histories of one chain)");
        }
        Copy c = copies.computeIfAbsent(to, k -> new Copy());
        long both = Math.min(c.last, check.end.seq());
        if (both > 0 && !c.hashes.get(both).equals(check.hashes.get(both))) {
            return broken(
                    l,
                    "the chain as commit " + l.commit() + " holds it differs at seq " + both
                            + " from the same chain in another commit (two histories of one chain)");
        }
        c.hashes.putAll(check.hashes);
        c.last = Math.max(c.last, check.end.seq());
        next.addAll(check.links);
        return null;
    }

    private static Verifier.Problem broken(Verifier.Link l, String why) {
        return new Verifier.Problem(
                l.file(),
                l.line(),
                l.seq(),
                VerifyResult.BROKEN_LINK,
                l.file() + " line " + l.line()
                        + " (seq " + l.seq() + ", " + l.op() + ") links to seq " + l.toSeq() + " of chain " + l.to()
                        + ", but "
                        + why + ": the link between the chains is broken.");
    }

    private static BranchName name(String chain) {
        try {
            return new BranchName(chain);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
