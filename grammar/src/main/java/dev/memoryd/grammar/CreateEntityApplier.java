package dev.memoryd.grammar;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code create_entity}: a user, part or relationship as its two new files (profile or overview,
 * and notes) rendered from the grammar's templates, linked as the example tree's files are. The
 * user (and a relationship's participants) must exist, the new files must not.
 */
final class CreateEntityApplier {
    static final Pattern ULID = Pattern.compile("[0-7][0-9A-HJKMNP-TV-Z]{25}");
    private static final Pattern LINKS_BLOCK = Pattern.compile("(?m)^  links:\n(?:    - .*\n|      .*\n)+");

    private CreateEntityApplier() {}

    static OpOutcome apply(DeclarationRun run, CreateEntity c, int index) {
        Grammar g = run.g;
        String type = c.entityType();
        if (!Set.of("user", "part", "relationship").contains(type)) {
            throw new OpRejected(
                    Reason.INVALID_OP, "entity_type must be user, part or relationship, not '" + type + "'");
        }
        requireId("user_id", c.userId());
        String entityId;
        if (type.equals("user")) {
            if (c.entityId() != null && !c.entityId().equals(c.userId())) {
                throw new OpRejected(Reason.INVALID_OP, "entity_id is not used for a user (or must equal user_id)");
            }
            entityId = c.userId();
        } else {
            if (c.entityId() == null) {
                throw new OpRejected(Reason.INVALID_OP, "missing required field 'entity_id' for a " + type);
            }
            requireId("entity_id", c.entityId());
            entityId = c.entityId();
        }
        String title = c.title();
        if (title == null
                || title.isBlank()
                || title.length() > 200
                || title.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f)) {
            throw new OpRejected(Reason.INVALID_OP, "title must be one non-empty line of at most 200 chars");
        }
        if (Bodies.structureProblem(title) != null) {
            throw new OpRejected(Reason.PROHIBITED, "title " + Bodies.structureProblem(title));
        }
        if (c.sliceIds().size() != 2
                || !c.sliceIds().stream().allMatch(s -> ULID.matcher(s).matches())
                || c.sliceIds().get(0).equals(c.sliceIds().get(1))) {
            throw new OpRejected(Reason.INVALID_OP, "slice_ids must be two distinct ULIDs (profile/overview, notes)");
        }
        if (type.equals("relationship")) {
            List<String> ps = c.participants();
            if (ps.size() != 2 || ps.get(0).equals(ps.get(1))) {
                throw new OpRejected(
                        Reason.INVALID_OP, "a relationship needs exactly two distinct participants (part ids)");
            }
            for (String p : ps) {
                requireId("participants", p);
            }
        } else if (!c.participants().isEmpty()) {
            throw new OpRejected(Reason.INVALID_OP, "participants are only for relationships");
        }
        FileType userType = g.fileType("user");
        RepoPath overview = g.pathFor(userType, "user", c.userId(), c.userId());
        if (!type.equals("user") && run.read(overview).isEmpty()) {
            throw new OpRejected(Reason.NOT_FOUND, "user '" + c.userId() + "' does not exist (no " + overview + ")");
        }
        List<String> participantSliceIds = new ArrayList<>();
        if (type.equals("relationship")) {
            FileType partType = g.fileType("part");
            for (String p : c.participants()) {
                RepoPath pp = g.pathFor(partType, "part", c.userId(), p);
                if (run.read(pp).isEmpty()) {
                    throw new OpRejected(
                            Reason.NOT_FOUND, "participant part '" + p + "' does not exist (no " + pp + ")");
                }
                participantSliceIds.add(sliceIdOf(run, pp));
            }
        }
        FileType profileType = g.fileType(type);
        FileType notesType = g.fileType("notes");
        RepoPath profile = g.pathFor(profileType, type, c.userId(), entityId);
        RepoPath notes = g.pathFor(notesType, type, c.userId(), entityId);
        for (RepoPath p : List.of(profile, notes)) {
            if (run.read(p).isPresent()) {
                throw new OpRejected(Reason.CONFLICT, "file already exists: " + p, Map.of("path", p.value()));
            }
        }
        Map<String, String> vars = new LinkedHashMap<>();
        vars.put("user_id", c.userId());
        vars.put("entity_type", type);
        vars.put("entity_id", entityId);
        vars.put("title", title);
        vars.put("now", run.nowText);
        vars.put(
                "participant_a",
                c.participants().isEmpty() ? "" : c.participants().get(0));
        vars.put(
                "participant_b",
                c.participants().isEmpty() ? "" : c.participants().get(1));
        // The links the example tree's files carry: a part or relationship is part_of its
        // user, a relationship see_also each participant, notes part_of their profile.
        vars.put("user_slice_id", type.equals("user") ? c.sliceIds().get(0) : sliceIdOf(run, overview));
        vars.put("profile_slice_id", c.sliceIds().get(0));
        vars.put("participant_a_slice_id", participantSliceIds.isEmpty() ? "" : participantSliceIds.get(0));
        vars.put("participant_b_slice_id", participantSliceIds.isEmpty() ? "" : participantSliceIds.get(1));
        vars.put("slice_id", c.sliceIds().get(0));
        String profileText = g.render(profileType.templateName(), vars);
        vars.put("slice_id", c.sliceIds().get(1));
        String notesText = g.render(notesType.templateName(), vars);
        if (run.unlinked.contains(index)) {
            profileText = withoutLinks(profileText);
            notesText = withoutLinks(notesText);
        }
        run.write(profile, profileText, index);
        run.write(notes, notesText, index);
        String summary = "created " + type + " " + entityId;
        run.addPhrase(profile, summary);
        return new OpOutcome(
                c, profile, null, null, run.hasher.hash(MemoryDocument.canonicalize(profileText)), summary, true);
    }

    /** The text with its frontmatter's {@code slice.links} list emptied ({@code links: []}). */
    private static String withoutLinks(String text) {
        return LINKS_BLOCK.matcher(text).replaceFirst("  links: []\n");
    }

    /** The {@code slice.id} of an existing memory file, which new files link to. */
    private static String sliceIdOf(DeclarationRun run, RepoPath p) {
        MemoryDocument doc = MemoryDocument.parse(run.read(p).orElseThrow());
        String id = doc.frontmatter() == null
                ? ""
                : doc.frontmatter().path("slice").path("id").asText("");
        if (!ULID.matcher(id).matches()) {
            throw new OpRejected(
                    Reason.INVALID_OP,
                    p + " has no valid slice.id (a ULID) for the new files to link to;" + " fix its frontmatter first");
        }
        return id;
    }

    private static void requireId(String field, String id) {
        if (id == null || !Grammar.ID.matcher(id).matches()) {
            throw new OpRejected(Reason.INVALID_OP, field + " '" + id + "' must match " + Grammar.ID.pattern());
        }
    }
}
