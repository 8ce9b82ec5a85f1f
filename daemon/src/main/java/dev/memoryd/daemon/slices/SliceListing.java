package dev.memoryd.daemon.slices;

import dev.memoryd.grammar.slices.Staleness;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One slice as {@code slices.list} lists it: where it is, what its frontmatter says of itself,
 * how fresh it is and, for a slice derived from another, whether its source changed since.
 *
 * @param id the slice's {@code id}; null when its frontmatter names none
 * @param path its file, relative to the root
 * @param title null when it has none
 * @param kind {@code context} when it names none
 * @param bodyType its {@code body.type}; null when it has none
 * @param freshness empty when the slice carries no date
 * @param derivedFrom empty when it has no complete {@code derived_from}
 */
public record SliceListing(
        String id,
        String path,
        String title,
        String kind,
        String bodyType,
        Optional<Freshness> freshness,
        Optional<DerivedFrom> derivedFrom) {
    public SliceListing {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(freshness, "freshness");
        Objects.requireNonNull(derivedFrom, "derivedFrom");
        if (path.isEmpty()) {
            throw new IllegalArgumentException("path is empty");
        }
    }

    /**
     * Time-based staleness as of the listing.
     *
     * @param updated its newest JSONL row's {@code created_at}, else {@code meta.last_updated},
     *     else {@code meta.created_at}
     * @param staleness from 0 (fresh) up, rounded to three decimals
     * @param age e.g. {@code 2 days ago}
     */
    public record Freshness(Instant updated, double staleness, Staleness.Label label, String age) {
        public Freshness {
            Objects.requireNonNull(updated, "updated");
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(age, "age");
            if (!Double.isFinite(staleness)) {
                throw new IllegalArgumentException("staleness is not finite: " + staleness);
            }
        }

        /** E.g. {@code [FRESH - 2 days ago]}. */
        public String tag() {
            return "[" + label + " - " + age + "]";
        }
    }

    /** The source a derived slice names, and whether its hash still matches the one recorded. */
    public record DerivedFrom(String id, Staleness.DerivedStatus status) {
        public DerivedFrom {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(status, "status");
        }
    }
}
