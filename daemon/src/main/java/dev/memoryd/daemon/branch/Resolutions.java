package dev.memoryd.daemon.branch;

import java.util.List;
import java.util.Objects;

/**
 * A merge's resolutions as the caller gave them: {@link Given} (possibly none), or {@link Invalid}
 * with the reason they could not be read, which the merge answers with {@code invalid_request} at
 * the point it would have used them, so a request's other errors keep their precedence.
 */
public sealed interface Resolutions {
    /** No resolutions. */
    Resolutions NONE = new Given(List.of());

    record Given(List<Resolution> list) implements Resolutions {
        public Given {
            list = List.copyOf(list);
        }
    }

    record Invalid(String message) implements Resolutions {
        public Invalid {
            Objects.requireNonNull(message, "message");
        }
    }
}
