package dev.memoryd.daemon.conversation;

import dev.memoryd.grammar.policy.SliceExport;
import java.util.Objects;

/**
 * What {@code context} answers: the SliceExport of SlicePolicy v1 selected around an anchor turn,
 * and the mounted peer whose conversations it was selected from ({@code peer}, null for the served
 * root's own). The protocol edge writes it as the export's JSON followed by {@code peer} when there
 * is one. Immutable.
 */
public record ContextSlice(SliceExport export, String peer) {
    public ContextSlice {
        Objects.requireNonNull(export, "export");
    }

    /** A context of the served root's own conversations. */
    public static ContextSlice local(SliceExport export) {
        return new ContextSlice(export, null);
    }
}
