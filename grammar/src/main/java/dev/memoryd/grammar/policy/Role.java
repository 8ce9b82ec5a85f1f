package dev.memoryd.grammar.policy;

/** Author role of a turn (SlicePolicy v1 §6.1); {@link #wire()} is its JSON name. */
public enum Role {
    USER("user"),
    ASSISTANT("assistant"),
    SYSTEM("system"),
    TOOL("tool");

    private final String wire;

    Role(String wire) {
        this.wire = wire;
    }

    /** The JSON name, lowercase. */
    public String wire() {
        return wire;
    }

    /** The role whose JSON name is {@code s}, or {@code null}. */
    static Role fromWire(String s) {
        for (Role r : values()) {
            if (r.wire.equals(s)) {
                return r;
            }
        }
        return null;
    }
}
