package dev.memoryd.daemon.api;

/**
 * The value of a service call: either a result or an expected {@link Failure}. Unexpected
 * failures (I/O, bugs) are exceptions, never an Outcome.
 */
public sealed interface Outcome<T> {
    record Ok<T>(T value) implements Outcome<T> {}

    record Failed<T>(Failure failure) implements Outcome<T> {}

    static <T> Outcome<T> ok(T value) {
        return new Ok<>(value);
    }

    static <T> Outcome<T> fail(ErrorReason reason, String message) {
        return new Failed<>(Failure.of(reason, message));
    }

    static <T> Outcome<T> fail(Failure f) {
        return new Failed<>(f);
    }
}
