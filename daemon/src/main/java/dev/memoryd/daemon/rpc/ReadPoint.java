package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.api.ErrorReason;
import java.io.IOException;

/** The {@code branch} and {@code at} parameters: which branch a method acts on, which commit a read answers from. */
final class ReadPoint {
    private final ServingRoot svc;

    ReadPoint(ServingRoot svc) {
        this.svc = svc;
    }

    /** The {@code branch} parameter, checked to name a local branch (null: the checked-out one). */
    String branch(ObjectNode p) throws BadRequest {
        String b = Params.str(p, "branch", false);
        if (b == null || b.equals(svc.config().branch())) {
            return null;
        }
        try {
            Replies.unwrap(
                    svc.reads().readPoint(b, null)); // not_found / invalid_request for a branch that is not there
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return b;
    }

    /** The commit a read answers from: {@code at}, else a non-checked-out branch's head, else null. */
    String at(ObjectNode p) throws BadRequest, IOException {
        return Replies.unwrap(svc.reads().readPoint(branch(p), Params.str(p, "at", false)));
    }

    /**
     * As {@link #at(ObjectNode)} for a read of {@code ref}; when {@code ref} names a peer (read at
     * its mounted commit) a {@code branch} or {@code at} is refused, {@code data.field} naming the
     * parameter that was given.
     */
    String at(ObjectNode p, String ref) throws BadRequest, IOException {
        java.util.Optional<String> peer = svc.peers().peerOf(ref);
        String field = p.hasNonNull("at") ? "at" : branch(p) != null ? "branch" : null;
        if (peer.isPresent() && field != null) {
            throw new BadRequest(new dev.memoryd.daemon.api.Failure(
                    ErrorReason.INVALID_REQUEST,
                    "'" + ref + "' is in peer '" + peer.get() + "', which is read at its mounted commit: " + field
                            + " applies to the served root only",
                    dev.memoryd.daemon.api.Failure.ordered("field", field, "peer", peer.get())));
        }
        return at(p);
    }

    /** Methods served from the checked-out branch's indexes only. */
    void checkedOutOnly(ObjectNode p, String method) throws BadRequest {
        if (branch(p) != null) {
            throw new BadRequest(
                    ErrorReason.INVALID_REQUEST,
                    method + " covers the checked-out branch '"
                            + svc.config().branch() + "' only; read the branch '" + Params.str(p, "branch", false)
                            + "' with read, scope or traverse");
        }
    }
}
