package dev.memoryd.daemon.write;

import java.util.concurrent.CompletableFuture;

/**
 * One item of the writer's queue: a declaration and the future its caller waits on, or a task
 * to run between batches (with the future it completes). Immutable; built by any thread.
 */
record Pending(WriteRequest req, CompletableFuture<WriteOutcome> future, Runnable task, CompletableFuture<?> taskDone) {
    /** Poison pill: interrupting the writer could close its file channels mid-write. */
    static final Pending STOP = new Pending(null, null, null, null);

    Pending(WriteRequest req, CompletableFuture<WriteOutcome> future) {
        this(req, future, null, null);
    }
}
