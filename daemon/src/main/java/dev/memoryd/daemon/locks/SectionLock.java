package dev.memoryd.daemon.locks;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.MemoryDocument;
import dev.memoryd.grammar.RepoPath;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Locks or unlocks one section of a memory file: adds its anchor to (or takes it and its heading
 * off) the file's {@code slice.meta.locked_sections}, recorded as one {@value #OP} event on that
 * section. Already so: nothing changes and nothing is recorded. Deterministic given the file, so
 * replay redoes it from its event ({@link SectionLocks} registers the replayer).
 *
 * @param section the section's anchor or heading (the event names its anchor)
 */
record SectionLock(RepoPath path, String section, boolean lock) implements Mutation {
    static final String OP = dev.memoryd.daemon.events.SectionLockPayload.OP;

    @Override
    public Result apply(FileSource files, Instant now) {
        Optional<String> text = files.read(path);
        if (text.isEmpty()) {
            return refused(ErrorReason.NOT_FOUND, "no file " + path.value(), Map.of("path", path.value()));
        }
        MemoryDocument doc = MemoryDocument.parse(text.get());
        MemoryDocument.Section target = null;
        List<String> headings = new ArrayList<>();
        for (MemoryDocument.Section s : doc.sections()) {
            if (s.level() == 2) {
                headings.add(s.heading());
                if (target == null && (section.equals(s.anchor()) || section.equals(s.heading()))) {
                    target = s;
                }
            }
        }
        if (target == null) {
            return refused(
                    ErrorReason.UNKNOWN_SECTION,
                    "no section '" + section + "' in " + path.value(),
                    Failure.ordered("path", path.value(), "sections", headings));
        }
        String anchor = target.anchor();
        String heading = target.heading();
        List<String> locked = LockedSections.of(doc.frontmatter());
        boolean isLocked = locked.contains(anchor) || locked.contains(heading);
        if (isLocked == lock) {
            return new Done(Map.of(), List.of(), false);
        }
        List<String> next = new ArrayList<>(locked);
        if (lock) {
            next.add(anchor);
        } else {
            next.removeIf(x -> x.equals(anchor) || x.equals(heading));
        }
        String rewritten;
        try {
            rewritten = LockedSections.rewrite(text.get(), next);
        } catch (IllegalArgumentException e) {
            return refused(
                    ErrorReason.INVALID_REQUEST,
                    "cannot change the locks of " + path.value() + ": " + e.getMessage()
                            + "; edit slice.meta.locked_sections by hand",
                    Map.of("path", path.value()));
        }
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        payload.put("section", anchor);
        payload.put("locked", lock);
        payload.putArray("locked_sections")
                .addAll(next.stream().map(JsonNodeFactory.instance::textNode).toList());
        EventSpec e = new EventSpec(
                OP,
                path,
                anchor,
                null,
                null,
                payload,
                List.of(),
                (lock ? "lock" : "unlock") + " section " + anchor + " of " + path.value());
        return new Done(Map.of(path, rewritten), List.of(e), true);
    }

    private static Refused refused(ErrorReason reason, String message, Map<String, Object> data) {
        return new Refused(-1, new Failure(reason, message, data));
    }
}
