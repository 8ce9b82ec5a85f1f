package dev.memoryd.daemon.events;

import dev.memoryd.grammar.GrammarEdit;
import java.util.Objects;

/** The payload of {@code grammar_change}: the maintainer's change to the grammar. */
public record GrammarChangePayload(GrammarEdit.Change change) {
    public static final String OP = "grammar_change";

    public GrammarChangePayload {
        Objects.requireNonNull(change, "change");
    }
}
