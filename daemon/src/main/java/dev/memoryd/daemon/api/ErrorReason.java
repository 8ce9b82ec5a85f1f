package dev.memoryd.daemon.api;

/**
 * The error reasons of the socket protocol ({@code error.data.reason}), each with its JSON-RPC
 * code. Names are part of the client contract (docs/DESIGN.md): extend, never rename.
 */
public enum ErrorReason {
    INVALID_REQUEST("invalid_request", -32600),
    UNKNOWN_METHOD("unknown_method", -32601),
    INVALID_OP("invalid_op", -32602),
    NOT_FOUND("not_found", -32004),
    UNKNOWN_SECTION("unknown_section", -32005),
    PROHIBITED("prohibited", -32006),
    SECTION_LOCKED("section_locked", -32007),
    CONFLICT("conflict", -32009),
    CAP_EXCEEDED("cap_exceeded", -32010),
    DRIFT("drift", -32011),
    UNAUTHORIZED("unauthorized", -32012),
    TOO_LARGE("too_large", -32013),
    SPEC_VIOLATION("spec_violation", -32014),
    UNAVAILABLE("unavailable", -32015),
    INTERNAL("internal", -32603);

    private final String wire;
    private final int code;

    ErrorReason(String wire, int code) {
        this.wire = wire;
        this.code = code;
    }

    public String wireName() {
        return wire;
    }

    public int code() {
        return code;
    }

    /** Maps the grammar's rejection reasons by wire name; they are a subset of these. */
    public static ErrorReason fromWire(String wire) {
        for (ErrorReason r : values()) {
            if (r.wire.equals(wire)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown reason " + wire);
    }
}
