package dev.memoryd.grammar.policy;

/** Type of a parent → child edge (SlicePolicy v1 §6.1); {@link #wire()} is its JSON name. */
public enum EdgeType {
    REPLY("reply"),
    BRANCH("branch"),
    REFERENCE("reference"),
    DEFAULT("default");

    private final String wire;

    EdgeType(String wire) {
        this.wire = wire;
    }

    /** The JSON name, lowercase. */
    public String wire() {
        return wire;
    }

    /** The edge type whose JSON name is {@code s}, or {@code null}. */
    static EdgeType fromWire(String s) {
        for (EdgeType t : values()) {
            if (t.wire.equals(s)) {
                return t;
            }
        }
        return null;
    }
}
