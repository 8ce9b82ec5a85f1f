package dev.memoryd.daemon.watch;

import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.grammar.RepoPath;
import io.methvin.watcher.DirectoryChangeEvent;
import io.methvin.watcher.DirectoryWatcher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Turns humans' edits of memory files into captures on the writer. Events from a recursive
 * watch of {@code users/} only say which files to look at: whether anything changed is decided
 * by the writer, by content against the recorded text, so the daemon's own writes, editors'
 * swap and backup files, temp-file-and-rename saves and repeated events all come to the right
 * result. Captures wait for a quiet period (no event anywhere for {@code quiet}, at most
 * {@code 5 * quiet} after the first) so a burst becomes one commit. A file the human staged is
 * left for their commit ({@link WritePipeline#captureSaves}).
 *
 * <p>Events can be lost (OVERFLOW, a watcher that died, edits while the daemon was down), so
 * the watcher also rescans: at start, on OVERFLOW, after restarting a dead watch, and every
 * {@code rescanEvery}. It reads the branch ref when the git directory changes ({@link RefWatch},
 * at most every {@value #REF_POLL_MS} ms) so commits made with plain git are captured too.
 *
 * <p>Nothing runs on a timer while nothing happens: the tick thread is woken by an event, a
 * change in the git directory or a watch that died, and otherwise sleeps until the next
 * deadline it knows of (a quiet period ending, the next rescan). Thread-safe; {@link #health()}
 * reports its state for {@code ping}.
 */
public final class HumanWatcher implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(HumanWatcher.class.getName());
    private static final long REF_POLL_MS = 200;
    private static final long RETRY_NANOS = 1_000_000_000L;

    private final Path root;
    private final Path users;
    private final WritePipeline writer;
    private final GitStore git;
    private final long quietNanos;
    private final long rescanNanos;
    private final Clock clock;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "memoryd-watch-tick");
        t.setDaemon(true);
        return t;
    });

    private final Object lock = new Object();
    private final Set<RepoPath> pending = new HashSet<>();
    private long firstPendingNanos;
    private long lastEventNanos;
    private boolean rescanWanted = true;
    private long lastRescanNanos;
    private long lastRefPollNanos;
    private boolean refWanted = true;
    private ObjectId lastRef;
    private ScheduledFuture<?> nextTick;
    private long nextTickNanos;
    private volatile RefWatch refWatch;

    private volatile DirectoryWatcher watch;
    private volatile CompletableFuture<Void> watching;
    private volatile String state = "starting";
    private volatile String lastError;
    private volatile Instant lastEvent;
    private volatile Instant lastCapture;
    private volatile Instant lastRescan;
    private final AtomicLong restarts = new AtomicLong();
    private final AtomicLong rescans = new AtomicLong();
    private final AtomicLong captures = new AtomicLong();
    private final AtomicLong events = new AtomicLong();
    private volatile boolean closing;

    public HumanWatcher(
            Path root, WritePipeline writer, GitStore git, Duration quiet, Duration rescanEvery, Clock clock) {
        this.root = root;
        this.users = root.resolve("users");
        this.writer = writer;
        this.git = git;
        this.quietNanos = quiet.toNanos();
        this.rescanNanos = rescanEvery.toNanos();
        this.clock = clock;
    }

    /** Starts watching; the first tick rescans every memory file and the branch. */
    public void start() throws IOException {
        Files.createDirectories(users);
        startWatch();
        startRefWatch();
        long now = System.nanoTime();
        synchronized (lock) {
            lastRescanNanos = now;
            lastEventNanos = now - quietNanos;
        }
        wakeAt(now);
    }

    private void startRefWatch() throws IOException {
        RefWatch r = new RefWatch(git.repository().getDirectory().toPath(), git.branchRef(), this::onRefDirChange);
        r.start();
        refWatch = r;
    }

    private void onRefDirChange() {
        long at;
        synchronized (lock) {
            refWanted = true;
            at = lastRefPollNanos + REF_POLL_MS * 1_000_000;
        }
        wakeAt(Math.max(at, System.nanoTime()));
    }

    /** Runs a tick at {@code at} (System.nanoTime) unless one is already due by then. */
    private void wakeAt(long at) {
        synchronized (lock) {
            if (closing || nextTick != null && nextTickNanos - at <= 0) {
                return;
            }
            if (nextTick != null) {
                nextTick.cancel(false);
            }
            nextTickNanos = at;
            nextTick = ticker.schedule(this::tick, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    private void startWatch() throws IOException {
        DirectoryWatcher w = DirectoryWatcher.builder()
                .path(users)
                .fileHashing(false) // the writer compares content; hashing here would double the reads
                .logger(org.slf4j.helpers.NOPLogger.NOP_LOGGER)
                .listener(this::onEvent)
                .build();
        watch = w;
        CompletableFuture<Void> f = w.watchAsync(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "memoryd-watch");
            t.setDaemon(true);
            return t;
        }));
        watching = f;
        state = "running";
        f.whenComplete((v, t) -> wakeAt(System.nanoTime())); // a dead watch is restarted at once
    }

    private void onEvent(DirectoryChangeEvent e) {
        events.incrementAndGet();
        long now = System.nanoTime();
        lastEvent = clock.instant();
        synchronized (lock) {
            lastEventNanos = now;
            if (e.eventType() == DirectoryChangeEvent.EventType.OVERFLOW) {
                rescanWanted = true;
                return;
            }
            Path p = e.path();
            if (p == null) {
                rescanWanted = true;
                return;
            }
            String rel = root.relativize(p).toString().replace('\\', '/');
            if (e.isDirectory()) {
                // A directory moved in or out carries files the watch may not report one by one.
                rescanWanted = true;
                return;
            }
            if (RootLayout.isMemoryFile(rel)) {
                RepoPath rp;
                try {
                    rp = RepoPath.of(rel);
                } catch (IllegalArgumentException bad) {
                    return; // not a path memoryd could hold; lint reports such files
                }
                if (pending.isEmpty()) {
                    firstPendingNanos = now;
                }
                pending.add(rp);
            }
        }
        wakeAt(Math.min(now + quietNanos, firstPendingNanos + 5 * quietNanos));
    }

    private void tick() {
        synchronized (lock) {
            nextTick = null;
        }
        try {
            long now = System.nanoTime();
            CompletableFuture<Void> w = watching;
            if (!closing && w != null && w.isDone()) {
                restartWatch(w);
            }
            RefWatch r = refWatch;
            if (!closing && r != null && r.failure() != null) {
                restartRefWatch(r);
            }
            boolean readRef;
            synchronized (lock) {
                readRef = refWanted && now - lastRefPollNanos >= REF_POLL_MS * 1_000_000;
                if (readRef) {
                    refWanted = false;
                    lastRefPollNanos = now;
                }
            }
            if (readRef) {
                ObjectId ref = git.refNow();
                if (lastRef != null && !lastRef.equals(ref) && !writer.isOwnTip(ref)) {
                    // A commit made with git: the writer captures it before anything else. Not for
                    // memoryd's own, which would take the branch's lock once more after every write.
                    submit(List.of());
                } else {
                    writer.indexMayHaveChanged();
                }
                lastRef = ref;
            }
            List<RepoPath> due = null;
            boolean rescan = false;
            synchronized (lock) {
                boolean quiet = now - lastEventNanos >= quietNanos;
                if (!pending.isEmpty() && (quiet || now - firstPendingNanos >= 5 * quietNanos)) {
                    due = new ArrayList<>(pending);
                    pending.clear();
                }
                if (rescanWanted && (quiet || now - lastRescanNanos >= 5 * quietNanos)
                        || rescanNanos > 0 && now - lastRescanNanos >= rescanNanos) {
                    rescanWanted = false;
                    rescan = true;
                    lastRescanNanos = now;
                    refWanted = true; // the rescan's safety net covers a missed change of the ref too
                }
            }
            if (rescan) {
                rescans.incrementAndGet();
                lastRescan = clock.instant();
                track(writer.captureAllSaves()); // covers the due files too
            } else if (due != null) {
                track(writer.captureSeen(due));
            }
        } catch (IOException | RuntimeException e) {
            // The tick must survive anything: a dead ticker is the silent staleness this class exists to avoid.
            lastError = e.toString();
            LOG.log(Level.WARNING, "watch tick failed; retrying", e);
            synchronized (lock) {
                rescanWanted = true;
            }
            scheduleNext(System.nanoTime() + RETRY_NANOS); // a failing tick retries, but not in a loop
            return;
        }
        scheduleNext(System.nanoTime());
    }

    /** Sleeps until the earliest deadline there is; with nothing pending, that is the next rescan. */
    private void scheduleNext(long notBefore) {
        long now = System.nanoTime();
        long due = Long.MAX_VALUE;
        synchronized (lock) {
            long quietEnds = lastEventNanos + quietNanos;
            if (!pending.isEmpty()) {
                due = Math.min(due, Math.min(quietEnds, firstPendingNanos + 5 * quietNanos));
            }
            if (rescanWanted) {
                due = Math.min(due, Math.min(quietEnds, lastRescanNanos + 5 * quietNanos));
            }
            if (rescanNanos > 0) {
                due = Math.min(due, lastRescanNanos + rescanNanos);
            }
            if (refWanted) {
                due = Math.min(due, lastRefPollNanos + REF_POLL_MS * 1_000_000);
            }
        }
        CompletableFuture<Void> w = watching;
        RefWatch r = refWatch;
        if (w != null && w.isDone() || r != null && r.failure() != null) {
            due = Math.min(due, now + RETRY_NANOS); // a restart that failed is tried again
        }
        if (due != Long.MAX_VALUE) {
            wakeAt(Math.max(due, notBefore));
        }
    }

    private void submit(List<RepoPath> paths) {
        track(writer.captureSaves(paths));
    }

    private void track(CompletableFuture<WriteOutcome> capture) {
        capture.whenComplete((out, err) -> {
            if (err != null) {
                lastError = err.toString();
                synchronized (lock) {
                    rescanWanted = true; // nothing is lost: the next rescan looks again
                }
                scheduleNext(System.nanoTime() + RETRY_NANOS); // not at once: the writer refused, it may still
            } else if (out instanceof WriteOutcome.Committed) {
                captures.incrementAndGet();
                lastCapture = clock.instant();
            }
        });
    }

    private void restartWatch(CompletableFuture<Void> dead) {
        String why = dead.isCompletedExceptionally()
                ? dead.handle((v, t) -> String.valueOf(t)).join()
                : "watch ended";
        lastError = why;
        state = "restarting";
        restarts.incrementAndGet();
        LOG.warning("the file watch of " + users + " stopped (" + why + "); restarting it and rescanning");
        try {
            DirectoryWatcher old = watch;
            if (old != null) {
                old.close();
            }
            startWatch();
        } catch (IOException e) {
            state = "failed";
            lastError = e.toString();
            watching = CompletableFuture.failedFuture(e); // the next tick tries again
        }
        synchronized (lock) {
            rescanWanted = true;
        }
    }

    private void restartRefWatch(RefWatch dead) {
        lastError = String.valueOf(dead.failure());
        restarts.incrementAndGet();
        LOG.warning("the watch of the git directory stopped (" + lastError + "); restarting it");
        dead.close();
        try {
            startRefWatch();
        } catch (IOException e) {
            lastError = e.toString(); // refWatch still names the dead one: the next tick tries again
        }
        synchronized (lock) {
            refWanted = true;
        }
    }

    /** The watcher's state for {@code ping}, in the wire's key order; a last time or error not yet seen is null. */
    public Map<String, Object> health() {
        Map<String, Object> o = new LinkedHashMap<>();
        CompletableFuture<Void> w = watching;
        o.put("state", closing ? "stopped" : w != null && w.isDone() ? "restarting" : state);
        o.put("quiet_ms", quietNanos / 1_000_000);
        o.put("rescan_every_s", rescanNanos / 1_000_000_000);
        synchronized (lock) {
            o.put("pending", pending.size());
        }
        o.put("events", events.get());
        o.put("captures", captures.get());
        o.put("rescans", rescans.get());
        o.put("restarts", restarts.get());
        o.put("last_event", lastEvent == null ? null : lastEvent.toString());
        o.put("last_capture", lastCapture == null ? null : lastCapture.toString());
        o.put("last_rescan", lastRescan == null ? null : lastRescan.toString());
        o.put("last_error", lastError);
        return o;
    }

    /** For tests: kills the underlying watch as a crash would; the next tick restarts it. */
    public void killWatchForTest() throws IOException {
        watch.close();
    }

    @Override
    public void close() {
        synchronized (lock) {
            closing = true; // under the lock: no wake-up schedules on the ticker once it is shut down
        }
        ticker.shutdownNow();
        RefWatch r = refWatch;
        if (r != null) {
            r.close();
        }
        try {
            DirectoryWatcher w = watch;
            if (w != null) {
                w.close();
            }
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing the file watch", e);
        }
    }
}
