package dev.memoryd.ledger;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;

/**
 * The key ring a chain signs with, and the signing and checking of its lines: a line is signed
 * with the ring's current version, checked with the version it names.
 *
 * <p>Not thread-safe: owned by one {@link Chain}, whose caller serializes every call. The MACs
 * are made once per key version and kept.
 */
final class LineSigner {
    /** The events of signed drafts, their encoded lines (with newline), and the last line's hash. */
    record Signed(List<Event> events, List<byte[]> lines, String lastHash) {}

    private KeyRing keys;
    private final Map<Integer, Mac> macs = new HashMap<>();

    LineSigner(KeyRing keys) {
        this.keys = keys;
    }

    KeyRing keys() {
        return keys;
    }

    /**
     * Signs with {@code ring} from now on. The ring must hold every version the old one did.
     *
     * @throws IllegalArgumentException if it does not
     */
    void use(KeyRing ring) {
        if (!ring.versions().containsAll(keys.versions())) {
            throw new IllegalArgumentException("the new key ring lacks versions " + keys.versions());
        }
        this.keys = ring;
    }

    /** Signs with {@code ring} again, as before a prepared batch that is forgotten. */
    void restore(KeyRing ring) {
        this.keys = ring;
    }

    /**
     * The drafts as consecutive lines of chain {@code chainId} after the line with {@code seq} and
     * hash {@code prev}, signed with the current key version.
     */
    Signed sign(long seq, String prev, String chainId, List<EventDraft> drafts) {
        int version = keys.current();
        Mac mac = macs.computeIfAbsent(version, keys::lineMac);
        List<Event> events = new ArrayList<>(drafts.size());
        List<byte[]> lines = new ArrayList<>(drafts.size());
        for (EventDraft d : drafts) {
            seq++;
            Event unsigned =
                    d.toEvent(seq, chainId, new Integrity(prev, Integrity.GENESIS_PREV, Integrity.ALGO, version));
            String[] signed = LineCodec.signAndEncode(mac, unsigned);
            events.add(d.toEvent(seq, chainId, new Integrity(prev, signed[0], Integrity.ALGO, version)));
            lines.add(signed[1].getBytes(StandardCharsets.UTF_8));
            prev = signed[0];
        }
        return new Signed(events, lines, prev);
    }

    /** Whether {@code line} (ending with its newline) carries a valid HMAC for its parsed event {@code e}. */
    private boolean verifies(byte[] line, Event e) {
        return LineCodec.verify(
                macs.computeIfAbsent(e.integrity().saltVersion(), keys::lineMac), line, 0, line.length - 1, e);
    }

    /**
     * Checks that {@code lines} (each ending with its newline) follow the line with {@code seq}
     * and hash {@code prev} of chain {@code chainId} (null for a chain with no lines), each signed
     * with a version of the ring; returns the last one's event.
     *
     * @throws IllegalStateException naming {@code branch} if a line does not
     */
    Event checkFollowing(List<byte[]> lines, long seq, String prev, String chainId, Path dir, BranchName branch) {
        String id = chainId;
        Event e = null;
        for (byte[] line : lines) {
            e = SegmentLines.parseLine(line, 0, line.length - 1, dir);
            seq++;
            if (e.seq() != seq
                    || !e.integrity().prev().equals(prev)
                    || (id != null && !id.equals(e.chain()))
                    || !verifies(line, e)) {
                throw new IllegalStateException("the journal's line for seq " + seq + " of branch " + branch
                        + " does not verify against the chain; nothing of it was appended");
            }
            prev = e.integrity().lineHash();
            id = e.chain();
        }
        return e;
    }
}
