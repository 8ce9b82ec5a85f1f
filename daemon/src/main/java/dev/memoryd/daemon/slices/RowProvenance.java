package dev.memoryd.daemon.slices;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.write.Provenance;
import java.util.Map;

/**
 * A JSONL row with the provenance its write captured, as Slices v1 places it: {@code
 * _meta.provenance}. On a root with provenance on, the daemon is the only author of that member, so
 * a row that brings its own is refused rather than overwritten (its fields go in the request's
 * parameters instead). The row is stamped before it is queued, so its event's {@code payload.row}
 * holds the stamped row and replay writes the same bytes.
 */
final class RowProvenance {
    private RowProvenance() {}

    sealed interface Stamped {
        record Row(JsonNode row) implements Stamped {}

        record Refused(Failure failure) implements Stamped {}
    }

    /** {@code row} with {@code _meta.provenance} set to {@code p}; a row that is not an object is left to the append's own check. */
    static Stamped stamp(JsonNode row, Provenance p) {
        if (row == null || !row.isObject() || !row.path("_meta").isObject()) {
            return new Stamped.Row(row); // refused by the append with the field it lacks
        }
        if (row.get("_meta").has("provenance")) {
            return new Stamped.Refused(new Failure(
                    ErrorReason.INVALID_REQUEST,
                    "row._meta.provenance is written by"
                            + " memoryd on this root (provenance is on); give source, confidence and context as parameters",
                    Map.of("field", "row._meta.provenance")));
        }
        ObjectNode out = row.deepCopy();
        ((ObjectNode) out.get("_meta")).set("provenance", dev.memoryd.daemon.write.ProvenanceJson.of(p));
        return new Stamped.Row(out);
    }
}
