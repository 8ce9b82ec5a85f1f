package dev.memoryd.daemon.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An expected, client-visible refusal: a reason from the protocol, one clear sentence, details.
 *
 * <p>{@code details} keep the order they were given in: a reply's {@code error.data} (and every
 * copy of it, such as a sync row's {@code violation}) lists them in that order, the same in every
 * run. Build several with {@link #ordered}, not {@code Map.of}, whose order is unspecified. No key
 * or value is null.
 */
public record Failure(ErrorReason reason, String message, Map<String, Object> details) {
    public Failure {
        details = details == null ? Map.of() : copy(details);
    }

    public static Failure of(ErrorReason reason, String message) {
        return new Failure(reason, message, Map.of());
    }

    /** Two details, in this order. */
    public static Map<String, Object> ordered(String k1, Object v1, String k2, Object v2) {
        return ordered(new Object[] {k1, v1, k2, v2});
    }

    /** Three details, in this order. */
    public static Map<String, Object> ordered(String k1, Object v1, String k2, Object v2, String k3, Object v3) {
        return ordered(new Object[] {k1, v1, k2, v2, k3, v3});
    }

    /** Four details, in this order. */
    public static Map<String, Object> ordered(
            String k1, Object v1, String k2, Object v2, String k3, Object v3, String k4, Object v4) {
        return ordered(new Object[] {k1, v1, k2, v2, k3, v3, k4, v4});
    }

    private static Map<String, Object> ordered(Object[] kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            if (m.containsKey((String) kv[i])) {
                throw new IllegalArgumentException("duplicate detail: " + kv[i]);
            }
            m.put((String) kv[i], kv[i + 1]);
        }
        return copy(m);
    }

    private static Map<String, Object> copy(Map<String, Object> details) {
        Map<String, Object> m = new LinkedHashMap<>();
        details.forEach((k, v) -> m.put(Objects.requireNonNull(k, "detail key"), Objects.requireNonNull(v, k)));
        return Collections.unmodifiableMap(m);
    }
}
