package dev.memoryd.grammar;

import java.util.Map;

/**
 * An op's refusal, thrown from deep inside the appliers of one declaration and turned into an
 * {@link ApplyResult.Rejected} by {@link Declarations}; it never leaves this package. Carries no
 * stack trace: it is an expected outcome, not a failure.
 */
final class OpRejected extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final Reason reason;
    final transient Map<String, Object> details;

    OpRejected(Reason reason, String message, Map<String, Object> details) {
        super(message, null, false, false);
        this.reason = reason;
        this.details = details;
    }

    OpRejected(Reason reason, String message) {
        this(reason, message, Map.of());
    }
}
