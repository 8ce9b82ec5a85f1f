package dev.memoryd.ledger;

import com.github.f4b6a3.ulid.UlidFactory;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Random;

/**
 * ULID source for event ids and chain ids, driven by an injected {@link Clock} and
 * {@link Random} so tests are deterministic. Monotonic: within the same millisecond (or if the
 * clock steps back) the random part is incremented, so ids from one generator strictly increase.
 *
 * <p>Thread-safety: safe for concurrent use (ulid-creator's monotonic factory locks internally).
 */
public final class IdGenerator {
    private final UlidFactory factory;
    private final Clock clock;

    public IdGenerator(Clock clock, Random random) {
        this.clock = clock;
        this.factory = UlidFactory.newMonotonicInstance(random, clock::millis);
    }

    /** System UTC clock and a {@link SecureRandom}. */
    public static IdGenerator system() {
        return new IdGenerator(Clock.systemUTC(), new SecureRandom());
    }

    /** The next id. */
    public EventId next() {
        return new EventId(factory.create().toString());
    }

    /** The clock ids are drawn from (callers stamp {@code ts} from the same source). */
    public Clock clock() {
        return clock;
    }
}
