package dev.memoryd.daemon.sync;

import dev.memoryd.daemon.branch.Resolutions;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The resolutions a {@code sync} is given: none, the checked-out branch's, or some per branch by
 * name; or {@link Malformed} (neither an array nor an object), which the sync refuses once it has
 * checked the remote. A branch's own may be {@link Resolutions.Invalid}, which the sync refuses
 * too, before it fetches or changes anything.
 */
public sealed interface SyncResolutions {
    SyncResolutions NONE = new None();

    /** The branches these resolutions name ({@code checkedOut}: the name of the checked-out branch). */
    List<String> named(String checkedOut);

    /** The resolutions for {@code branch}'s merge ({@code checkedOut}: the name of the checked-out branch). */
    Resolutions forBranch(String branch, String checkedOut);

    record None() implements SyncResolutions {
        @Override
        public List<String> named(String checkedOut) {
            return List.of();
        }

        @Override
        public Resolutions forBranch(String branch, String checkedOut) {
            return Resolutions.NONE;
        }
    }

    /** A non-empty array: the checked-out branch's. */
    record CheckedOut(Resolutions resolutions) implements SyncResolutions {
        public CheckedOut {
            Objects.requireNonNull(resolutions, "resolutions");
        }

        @Override
        public List<String> named(String checkedOut) {
            return List.of(checkedOut);
        }

        @Override
        public Resolutions forBranch(String branch, String checkedOut) {
            return branch.equals(checkedOut) ? resolutions : Resolutions.NONE;
        }
    }

    /** An object: branch name → that branch's resolutions, in the order given. */
    record ByBranch(Map<String, Resolutions> byBranch) implements SyncResolutions {
        public ByBranch {
            byBranch = Collections.unmodifiableMap(new LinkedHashMap<>(byBranch));
        }

        @Override
        public List<String> named(String checkedOut) {
            return List.copyOf(byBranch.keySet());
        }

        @Override
        public Resolutions forBranch(String branch, String checkedOut) {
            return byBranch.getOrDefault(branch, Resolutions.NONE);
        }
    }

    /** Neither an array nor an object. */
    record Malformed() implements SyncResolutions {
        @Override
        public List<String> named(String checkedOut) {
            return List.of();
        }

        @Override
        public Resolutions forBranch(String branch, String checkedOut) {
            return Resolutions.NONE;
        }
    }
}
