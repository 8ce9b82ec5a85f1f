package dev.memoryd.daemon.events;

import java.util.Objects;

/** The payload of {@code section_lock}: the section (heading or anchor, as given) and whether it is now locked. */
public record SectionLockPayload(String section, boolean locked) {
    public static final String OP = "section_lock";

    public SectionLockPayload {
        Objects.requireNonNull(section, "section");
    }
}
