package dev.memoryd.daemon.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The idle trim runs once per quiet period that follows requests, and never without them. */
class IdleTrimTest {
  private static final Duration QUIET = Duration.ofMillis(30);

  private final AtomicLong now = new AtomicLong();
  private final AtomicInteger trims = new AtomicInteger();

  private void awaitTrims(int n) throws InterruptedException {
    for (int i = 0; i < 500 && trims.get() < n; i++) {
      Thread.sleep(10);
    }
    assertEquals(n, trims.get());
  }

  @Test
  void whileRequestsKeepComing_nothingRuns_andOnceTheyStop_theTrimRunsOnce() throws Exception {
    try (IdleTrim t = new IdleTrim(QUIET, trims::incrementAndGet, now::get)) {
      t.touched();
      Thread.sleep(150); // the timer wakes several times, but the daemon's clock says it was never quiet
      assertEquals(0, trims.get());
      now.addAndGet(QUIET.toNanos());
      awaitTrims(1);
      Thread.sleep(150);
      assertEquals(1, trims.get(), "no request since: nothing more to give back");
      t.touched();
      now.addAndGet(QUIET.toNanos());
      awaitTrims(2);
    }
  }

  @Test
  void anIdleDaemon_neverTrims() throws Exception {
    try (IdleTrim t = new IdleTrim(QUIET, trims::incrementAndGet, now::get)) {
      now.addAndGet(QUIET.toNanos() * 10);
      Thread.sleep(150);
      assertEquals(0, trims.get());
    }
  }

  @Test
  void aQuietPeriodMustBePositive() {
    assertThrows(IllegalArgumentException.class, () -> new IdleTrim(Duration.ZERO, () -> { }, System::nanoTime));
  }
}
