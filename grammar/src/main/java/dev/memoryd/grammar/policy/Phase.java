package dev.memoryd.grammar.policy;

/** Conversation phase of a turn (SlicePolicy v1 §3.3); {@link #wire()} is its JSON name. */
public enum Phase {
    EXPLORATION("exploration"),
    DEBUGGING("debugging"),
    PLANNING("planning"),
    CONSOLIDATION("consolidation"),
    SYNTHESIS("synthesis");

    private final String wire;

    Phase(String wire) {
        this.wire = wire;
    }

    /** The JSON name, lowercase. */
    public String wire() {
        return wire;
    }

    /** The phase whose JSON name is {@code s}, or {@code null}. */
    static Phase fromWire(String s) {
        for (Phase p : values()) {
            if (p.wire.equals(s)) {
                return p;
            }
        }
        return null;
    }
}
