package dev.memoryd.daemon.api;

import java.util.Map;

/** An expected, client-visible refusal: a reason from the protocol, one clear sentence, details. */
public record Failure(ErrorReason reason, String message, Map<String, Object> details) {
    public Failure {
        details = details == null ? Map.of() : Map.copyOf(details);
    }

    public static Failure of(ErrorReason reason, String message) {
        return new Failure(reason, message, Map.of());
    }
}
