package dev.memoryd.daemon.rpc;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import java.util.Map;

/** A request a method refuses: its failure becomes the error reply. */
final class BadRequest extends Exception {
    final transient Failure failure;

    BadRequest(ErrorReason r, String msg) {
        this(new Failure(r, msg, Map.of()));
    }

    BadRequest(Failure f) {
        super(f.message(), null, false, false);
        this.failure = f;
    }
}
