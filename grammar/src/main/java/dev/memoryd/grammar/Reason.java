package dev.memoryd.grammar;

/**
 * Why a declaration was rejected; maps 1:1 to the {@code data.reason} wire names of
 * docs/DESIGN.md.
 */
public enum Reason {
    INVALID_OP("invalid_op"),
    NOT_FOUND("not_found"),
    UNKNOWN_SECTION("unknown_section"),
    PROHIBITED("prohibited"),
    SECTION_LOCKED("section_locked"),
    CONFLICT("conflict"),
    CAP_EXCEEDED("cap_exceeded"),
    DRIFT("drift"),
    SPEC_VIOLATION("spec_violation");

    private final String wireName;

    Reason(String wireName) {
        this.wireName = wireName;
    }

    /** The wire name, e.g. {@code cap_exceeded}. */
    public String wireName() {
        return wireName;
    }

    /** The reason with this wire name. @throws IllegalArgumentException if none */
    public static Reason fromWireName(String wire) {
        for (Reason r : values()) {
            if (r.wireName.equals(wire)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown reason '" + wire + "'");
    }
}
