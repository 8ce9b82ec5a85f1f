package dev.memoryd.daemon.app;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Gives memory back once the daemon falls quiet after work. The collector grows the heap to
 * what a burst of requests needed and, left alone, keeps it; one collection after a quiet period
 * lets it shrink to what is live (the heap's free ratio is a launcher setting), so an idle
 * daemon stays small.
 *
 * <p>Thread-safe. {@link #touched} is cheap: a volatile write, and a timer armed once per quiet
 * period. The timer thread wakes at most once per quiet period while requests come and never
 * while nothing happens, so an idle daemon costs no CPU for it.
 */
final class IdleTrim implements AutoCloseable {
  private final long quietNanos;
  private final Runnable trim;
  private final LongSupplier nanos;
  private final ScheduledExecutorService timer;
  private final AtomicBoolean armed = new AtomicBoolean();
  private volatile long last;

  IdleTrim(Duration quiet, Runnable trim, LongSupplier nanos) {
    if (quiet.isNegative() || quiet.isZero()) {
      throw new IllegalArgumentException("quiet period must be positive: " + quiet);
    }
    this.quietNanos = quiet.toNanos();
    this.trim = trim;
    this.nanos = nanos;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "memoryd-idle-trim");
      t.setDaemon(true);
      return t;
    });
  }

  /** The daemon's: a full collection after {@code quiet} without requests. */
  static IdleTrim collectAfter(Duration quiet) {
    return new IdleTrim(quiet, System::gc, System::nanoTime);
  }

  /** Notes a request; the trim runs once no request has come for the quiet period. */
  void touched() {
    last = nanos.getAsLong();
    if (armed.compareAndSet(false, true)) {
      timer.schedule(this::check, quietNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void check() {
    long idle = nanos.getAsLong() - last;
    if (idle < quietNanos) {
      timer.schedule(this::check, quietNanos - idle, TimeUnit.NANOSECONDS);
      return;
    }
    armed.set(false);
    trim.run();
    // A request that came while the trim was decided found the timer armed: arm it for it.
    if (nanos.getAsLong() - last < quietNanos && armed.compareAndSet(false, true)) {
      timer.schedule(this::check, quietNanos, TimeUnit.NANOSECONDS);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
