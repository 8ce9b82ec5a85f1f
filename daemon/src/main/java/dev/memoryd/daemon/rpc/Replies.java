package dev.memoryd.daemon.rpc;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.write.WriteOutcome;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Turning the service's outcomes into a method's value or its refusal. */
final class Replies {
    private Replies() {}

    /** A refusal as a reply: the failing item's index under {@code indexKey}, optionally in the message. */
    static BadRequest refused(WriteOutcome.Rejected rej, String indexKey, boolean prefixOp) {
        Map<String, Object> d = new LinkedHashMap<>(rej.failure().details());
        if (rej.opIndex() >= 0) {
            d.put(indexKey, rej.opIndex());
        }
        String prefix = prefixOp && rej.opIndex() >= 0 ? "ops[" + rej.opIndex() + "]: " : "";
        return new BadRequest(
                new Failure(rej.failure().reason(), prefix + rej.failure().message(), d));
    }

    /** The value of work queued on the writer; its failure is {@code unavailable}, prefixed by {@code failed}. */
    static <T> T value(CompletableFuture<T> f, String failed) throws BadRequest {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BadRequest(ErrorReason.UNAVAILABLE, "interrupted while waiting for the writer");
        } catch (ExecutionException e) {
            throw new BadRequest(ErrorReason.UNAVAILABLE, failed + e.getCause().getMessage());
        }
    }

    static WriteOutcome await(CompletableFuture<WriteOutcome> f) throws BadRequest {
        WriteOutcome out = value(f, "not recorded: ");
        if (out instanceof WriteOutcome.Rejected rej) {
            throw refused(rej, "op_index", true);
        }
        return out;
    }

    static <T> T unwrap(Outcome<T> o) throws BadRequest {
        if (o instanceof Outcome.Failed<T> f) {
            throw new BadRequest(f.failure());
        }
        return ((Outcome.Ok<T>) o).value();
    }
}
