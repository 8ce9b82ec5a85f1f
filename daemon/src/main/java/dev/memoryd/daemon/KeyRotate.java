package dev.memoryd.daemon;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.KeyRotatePayload;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.ContentHasher;
import dev.memoryd.ledger.KeyRing;
import dev.memoryd.ledger.Verifier;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The ledger line of a key rotation; touches no file. {@code ring} and {@code keyFile} are null
 * when it is replayed: a replay records the retirement point and changes no key.
 */
record KeyRotate(int retired, int current, KeyRing ring, Path keyFile, AtomicReference<ContentHasher> hasher)
        implements Mutation, WritePipeline.ChainHook {

    /** Lets the writer redo {@code key_rotate} lines (recovery, replay). */
    static void registerReplayer(WritePipeline writer, AtomicReference<ContentHasher> hasher) {
        writer.registerReplayer(Verifier.KEY_ROTATE, evs -> {
            KeyRotatePayload p = EventPayloads.keyRotate(evs.get(0))
                    .orElseThrow(() -> new IllegalStateException(
                            "ledger line " + evs.get(0).seq() + " is a key rotation without its key versions"));
            return new KeyRotate(p.retired(), p.current(), null, null, hasher);
        });
    }

    @Override
    public Result apply(FileSource files, Instant now) {
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        payload.put("retired", retired);
        payload.put("current", current);
        return new Done(
                Map.of(),
                List.of(new EventSpec(
                        Verifier.KEY_ROTATE,
                        null,
                        null,
                        null,
                        null,
                        payload,
                        List.of(),
                        "rotated the ledger key " + retired + " -> " + current)),
                true);
    }

    @Override
    public void afterAppend(Chain chain) {
        if (ring != null) {
            chain.useKeys(ring);
            hasher.set(ring.contentHasher());
        }
    }

    @Override
    public void afterUndo(Chain chain) {
        if (ring != null) {
            // The rotation line was cut off: the retiring key signs again, in the file as in the chain.
            KeyRing back = KeyRing.makeCurrent(keyFile, retired);
            chain.useKeys(back);
            hasher.set(back.contentHasher());
        }
    }
}
