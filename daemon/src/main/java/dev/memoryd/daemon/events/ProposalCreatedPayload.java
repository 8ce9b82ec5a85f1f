package dev.memoryd.daemon.events;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The payload of {@code proposal_created}: the proposal's {@code id}, its {@code branch} and
 * {@code commit}. Its {@code ops} (ops of every kind, replayed verbatim when it is accepted) and
 * its {@code base} (what each section was when proposed) are shown and replayed as recorded, so
 * they stay JSON: as recorded, a missing node when absent.
 */
public record ProposalCreatedPayload(String id, String branch, String commit, JsonNode ops, JsonNode base) {
    public static final String OP = "proposal_created";

    public ProposalCreatedPayload {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(branch, "branch");
        Objects.requireNonNull(commit, "commit");
        Objects.requireNonNull(ops, "ops");
        Objects.requireNonNull(base, "base");
    }
}
