package dev.memoryd.daemon.events;

import java.util.List;
import java.util.Objects;

/**
 * The payload of {@code human_edit}: one region a human changed ({@link Region}) or the whole file
 * ({@link WholeFile}). The {@code human} source the payload also records is left out: no reader
 * of the ledger uses it.
 */
public sealed interface HumanEditPayload {
    String OP = "human_edit";

    /** The new text: the region's, or the file's. */
    String text();

    /** Region {@code region} (its key), the {@code index}-th region of the file, now reads {@code text}. */
    record Region(String region, int index, String text) implements HumanEditPayload {
        public Region {
            Objects.requireNonNull(region, "region");
            Objects.requireNonNull(text, "text");
        }
    }

    /** The file now reads {@code text}; {@code changed} are the keys of the regions it changed, sorted. */
    record WholeFile(String text, List<String> changed) implements HumanEditPayload {
        public WholeFile {
            Objects.requireNonNull(text, "text");
            changed = List.copyOf(changed);
        }
    }
}
