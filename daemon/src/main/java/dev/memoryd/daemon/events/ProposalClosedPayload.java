package dev.memoryd.daemon.events;

import java.util.Objects;

/**
 * The payload of {@code proposal_accepted} and {@code proposal_rejected}: the proposal's
 * {@code id} and the note it was closed with (null when none).
 */
public record ProposalClosedPayload(String id, String note) {
    public static final String OP_ACCEPTED = "proposal_accepted";
    public static final String OP_REJECTED = "proposal_rejected";

    public ProposalClosedPayload {
        Objects.requireNonNull(id, "id");
    }
}
