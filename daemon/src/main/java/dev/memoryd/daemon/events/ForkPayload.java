package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * The payload of {@code branch_fork}, the first line of a chain: the chain line it continues
 * ({@code link}: another chain's line, null when the commit it starts from records none), where
 * it starts ({@code from}, a branch name or commit as given, and {@code fromCommit}), for a
 * replica's fork also the commit the linked line recorded and the replica's id (each null when
 * absent: a replica's fork written before recorded_commit names only the replica), and its
 * {@link Decl}. {@link #toJson} gives the bytes the ledger holds (checked by a golden test).
 */
public record ForkPayload(Link link, String from, String fromCommit, String recordedCommit, String replica, Decl decl)
        implements EventPayload {
    public static final String OP = "branch_fork";

    public ForkPayload {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(fromCommit, "fromCommit");
    }

    /**
     * A line of another chain, as a fork's payload names it. Not validated: a payload read from
     * disk may name anything, and {@code ledger verify} is what reports a link that resolves to no line.
     */
    public record Link(String branch, long seq, String lineHash) {}

    @Override
    public String op() {
        return OP;
    }

    @Override
    public ObjectNode toJson() {
        ObjectNode p = JsonNodeFactory.instance.objectNode();
        if (link != null) {
            p.putObject("link")
                    .put("branch", link.branch())
                    .put("seq", link.seq())
                    .put("line_hash", link.lineHash());
        }
        ObjectNode f = p.putObject("fork").put("from", from).put("from_commit", fromCommit);
        if (recordedCommit != null) {
            f.put("recorded_commit", recordedCommit);
        }
        if (replica != null) {
            f.put("replica", replica);
        }
        if (decl != null) {
            decl.writeTo(p);
        }
        return p;
    }
}
