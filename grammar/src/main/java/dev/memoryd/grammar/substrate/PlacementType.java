package dev.memoryd.grammar.substrate;

import java.util.Optional;

/** How a chunk sits on a scope: {@code instance} (it IS a member) or {@code relates} (it is ABOUT it). */
public enum PlacementType {
    INSTANCE("instance"),
    RELATES("relates");

    private final String wire;

    PlacementType(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<PlacementType> parse(String s) {
        for (PlacementType t : values()) {
            if (t.wire.equals(s)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
