package dev.memoryd.grammar;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Applies a declaration (a list of ops) to in-memory copies of memory files.
 *
 * <p>Contract: pure and deterministic given (grammar, file contents, ops, now, hasher):
 * replay with the same inputs yields byte-identical output. Ops apply in order, each
 * seeing the previous op's result; the first failing op rejects the whole declaration
 * ({@link ApplyResult.Rejected}) and nothing is to be written. Only the bytes of target
 * sections change, plus {@code slice.meta.last_updated} and the Change Log of each
 * changed file (one rollup bullet per day, plus inline lines for curations and cap
 * overrides). See docs/DESIGN.md for the op table and error reasons.
 *
 * <p>Body layout written by ops: one blank line after the anchor line, the content, and
 * one blank line before the next heading (none at EOF); an empty section has just the
 * blank line. Empty list sections hold no placeholder text.
 */
public final class Declarations {
    /**
     * Recent lint findings by path and text (see {@code Run.lintKeys}); bounded, thread-safe under
     * its lock. Sized for a few dozen files written in turn: a file's entry must outlive the
     * writes to the others until its next write (at 16, 16 writers' files missed).
     */
    private static final Map<LintKey, List<String>> LINTED = new java.util.LinkedHashMap<>(128, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<LintKey, List<String>> e) {
            return size() > 64;
        }
    };

    /** Grammar compares by identity: findings are only reused under the same grammar. */
    private record LintKey(Grammar grammar, RepoPath path, String text) {}


    private static final Pattern ULID = Pattern.compile("[0-7][0-9A-HJKMNP-TV-Z]{25}");
    private static final Pattern LAST_UPDATED =
            Pattern.compile("(?m)^([ \\t]+last_updated:[ \\t]*)([^\\r\\n]*?)([ \\t]*)(\\r?)$");
    private static final Pattern ADDED_EVIDENCE = Pattern.compile("added (\\d+) evidence items?");
    private static final Pattern ADDED_ITEMS = Pattern.compile("added (\\d+) items? to (.+)");
    private static final Pattern PHRASE = Pattern.compile(
            "(?:replaced|appended to|curated|tombstoned) .+|added \\d+ evidence items?|added \\d+ items? to .+"
                    + "|created (?:user|part|relationship) [a-z0-9][a-z0-9_-]*");

    private Declarations() {
    }

    /** Signals a rejection from deep inside an op. */
    private static final class Reject extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final Reason reason;
        final transient Map<String, Object> details;

        Reject(Reason reason, String message, Map<String, Object> details) {
            super(message, null, false, false);
            this.reason = reason;
            this.details = details;
        }

        Reject(Reason reason, String message) {
            this(reason, message, Map.of());
        }
    }

    /**
     * Applies the ops in order.
     *
     * @param g      the grammar
     * @param files  current file contents (read lazily, at most once per path)
     * @param ops    the declaration's ops
     * @param now    the declaration's timestamp (used for last_updated and Change Log dates)
     * @param hasher section hash function
     */
    public static ApplyResult apply(Grammar g, FileSource files, List<Op> ops, Instant now, SectionHasher hasher) {
        return apply(g, files, ops, now, hasher, false);
    }

    /**
     * Redoes a declaration the ledger already accepted: the same texts as {@link #apply}, without
     * the whole-file lint of each result, which only guards new writes (replay and recovery).
     */
    public static ApplyResult replay(Grammar g, FileSource files, List<Op> ops, Instant now, SectionHasher hasher) {
        return apply(g, files, ops, now, hasher, true, Set.of());
    }

    /**
     * As {@link #replay(Grammar, FileSource, List, Instant, SectionHasher)}, but the
     * {@code create_entity} ops at {@code unlinked} (op indexes) write {@code links: []}, as
     * they did before the templates carried the example tree's links, so lines recorded then
     * replay to the text they recorded.
     */
    public static ApplyResult replay(Grammar g, FileSource files, List<Op> ops, Instant now, SectionHasher hasher,
            Set<Integer> unlinked) {
        return apply(g, files, ops, now, hasher, true, Set.copyOf(unlinked));
    }

    private static ApplyResult apply(Grammar g, FileSource files, List<Op> ops, Instant now, SectionHasher hasher,
            boolean trusted) {
        return apply(g, files, ops, now, hasher, trusted, Set.of());
    }

    private static ApplyResult apply(Grammar g, FileSource files, List<Op> ops, Instant now, SectionHasher hasher,
            boolean trusted, Set<Integer> unlinked) {
        Objects.requireNonNull(g, "grammar");
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(ops, "ops");
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(hasher, "hasher");
        Run run = new Run(g, files, now, hasher);
        run.trusted = trusted;
        run.unlinked = unlinked;
        List<OpOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            try {
                outcomes.add(run.apply(ops.get(i), i));
            } catch (Reject r) {
                return new ApplyResult.Rejected(i, r.reason, r.getMessage(), r.details);
            }
        }
        try {
            Map<RepoPath, String> out = run.finish();
            return new ApplyResult.Applied(outcomes, out, !out.isEmpty());
        } catch (Reject r) {
            int idx = r.details.get("op_index") instanceof Integer n ? n : ops.size() - 1;
            Map<String, Object> d = new LinkedHashMap<>(r.details);
            d.remove("op_index");
            return new ApplyResult.Rejected(idx, r.reason, r.getMessage(), d);
        }
    }

    /** The mutable state of one apply call. */
    private static final class Run {
        final Grammar g;
        final FileSource files;
        final SectionHasher hasher;
        final String nowText;
        final String date;
        /** Current text of every file read or created; absent = not loaded yet. */
        final Map<RepoPath, Optional<String>> working = new LinkedHashMap<>();
        /** Text as read from the source (null for files created in this declaration). */
        final Map<RepoPath, String> original = new LinkedHashMap<>();
        /** Files targeted by ops, in first-touched order. */
        final Set<RepoPath> touched = new LinkedHashSet<>();
        /** Change Log phrases per file, in op order. */
        final Map<RepoPath, List<String>> phrases = new LinkedHashMap<>();
        /** Skip the lint of results (the ledger already accepted this declaration). */
        boolean trusted;
        /** Op indexes whose create_entity files get {@code links: []} (replay of older lines). */
        Set<Integer> unlinked = Set.of();
        /** Index of the last op that touched each file (for post-checks). */
        final Map<RepoPath, Integer> lastOp = new LinkedHashMap<>();

        Run(Grammar g, FileSource files, Instant now, SectionHasher hasher) {
            this.g = g;
            this.files = files;
            this.hasher = hasher;
            Instant secs = now.truncatedTo(ChronoUnit.SECONDS);
            this.nowText = secs.toString();
            this.date = LocalDate.ofInstant(secs, ZoneOffset.UTC).toString();
        }

        Optional<String> read(RepoPath p) {
            return working.computeIfAbsent(p, k -> {
                Optional<String> t = Objects.requireNonNull(files.read(k), "FileSource returned null");
                t.ifPresent(s -> original.put(k, s));
                return t;
            });
        }

        void write(RepoPath p, String text, int opIndex) {
            working.put(p, Optional.of(text));
            touched.add(p);
            lastOp.put(p, opIndex);
        }

        OpOutcome apply(Op op, int index) {
            if (op instanceof CreateEntity c) {
                return create(c, index);
            }
            if (op instanceof ReplaceSection r) {
                return sectionOp(op, index, r.path(), r.section());
            }
            if (op instanceof AppendSection a) {
                return sectionOp(op, index, a.path(), a.section());
            }
            if (op instanceof AppendItem a) {
                return sectionOp(op, index, a.path(), a.section());
            }
            if (op instanceof CurateItems c) {
                return sectionOp(op, index, c.path(), c.section());
            }
            TombstoneSection t = (TombstoneSection) op;
            return sectionOp(op, index, t.path(), t.section());
        }

        // ---------------------------------------------------------------- create_entity

        OpOutcome create(CreateEntity c, int index) {
            String type = c.entityType();
            if (!Set.of("user", "part", "relationship").contains(type)) {
                throw new Reject(Reason.INVALID_OP, "entity_type must be user, part or relationship, not '" + type + "'");
            }
            requireId("user_id", c.userId());
            String entityId;
            if (type.equals("user")) {
                if (c.entityId() != null && !c.entityId().equals(c.userId())) {
                    throw new Reject(Reason.INVALID_OP, "entity_id is not used for a user (or must equal user_id)");
                }
                entityId = c.userId();
            } else {
                if (c.entityId() == null) {
                    throw new Reject(Reason.INVALID_OP, "missing required field 'entity_id' for a " + type);
                }
                requireId("entity_id", c.entityId());
                entityId = c.entityId();
            }
            String title = c.title();
            if (title == null || title.isBlank() || title.length() > 200 || title.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f)) {
                throw new Reject(Reason.INVALID_OP, "title must be one non-empty line of at most 200 chars");
            }
            if (Bodies.structureProblem(title) != null) {
                throw new Reject(Reason.PROHIBITED, "title " + Bodies.structureProblem(title));
            }
            if (c.sliceIds().size() != 2 || !c.sliceIds().stream().allMatch(s -> ULID.matcher(s).matches())
                    || c.sliceIds().get(0).equals(c.sliceIds().get(1))) {
                throw new Reject(Reason.INVALID_OP, "slice_ids must be two distinct ULIDs (profile/overview, notes)");
            }
            if (type.equals("relationship")) {
                List<String> ps = c.participants();
                if (ps.size() != 2 || ps.get(0).equals(ps.get(1))) {
                    throw new Reject(Reason.INVALID_OP, "a relationship needs exactly two distinct participants (part ids)");
                }
                for (String p : ps) {
                    requireId("participants", p);
                }
            } else if (!c.participants().isEmpty()) {
                throw new Reject(Reason.INVALID_OP, "participants are only for relationships");
            }
            FileType userType = g.fileType("user");
            RepoPath overview = g.pathFor(userType, "user", c.userId(), c.userId());
            if (!type.equals("user") && read(overview).isEmpty()) {
                throw new Reject(Reason.NOT_FOUND, "user '" + c.userId() + "' does not exist (no " + overview + ")");
            }
            List<String> participantSliceIds = new ArrayList<>();
            if (type.equals("relationship")) {
                FileType partType = g.fileType("part");
                for (String p : c.participants()) {
                    RepoPath pp = g.pathFor(partType, "part", c.userId(), p);
                    if (read(pp).isEmpty()) {
                        throw new Reject(Reason.NOT_FOUND, "participant part '" + p + "' does not exist (no " + pp + ")");
                    }
                    participantSliceIds.add(sliceIdOf(pp));
                }
            }
            FileType profileType = g.fileType(type);
            FileType notesType = g.fileType("notes");
            RepoPath profile = g.pathFor(profileType, type, c.userId(), entityId);
            RepoPath notes = g.pathFor(notesType, type, c.userId(), entityId);
            for (RepoPath p : List.of(profile, notes)) {
                if (read(p).isPresent()) {
                    throw new Reject(Reason.CONFLICT, "file already exists: " + p, Map.of("path", p.value()));
                }
            }
            Map<String, String> vars = new LinkedHashMap<>();
            vars.put("user_id", c.userId());
            vars.put("entity_type", type);
            vars.put("entity_id", entityId);
            vars.put("title", title);
            vars.put("now", nowText);
            vars.put("participant_a", c.participants().isEmpty() ? "" : c.participants().get(0));
            vars.put("participant_b", c.participants().isEmpty() ? "" : c.participants().get(1));
            // The links the example tree's files carry: a part or relationship is part_of its
            // user, a relationship see_also each participant, notes part_of their profile.
            vars.put("user_slice_id", type.equals("user") ? c.sliceIds().get(0) : sliceIdOf(overview));
            vars.put("profile_slice_id", c.sliceIds().get(0));
            vars.put("participant_a_slice_id", participantSliceIds.isEmpty() ? "" : participantSliceIds.get(0));
            vars.put("participant_b_slice_id", participantSliceIds.isEmpty() ? "" : participantSliceIds.get(1));
            vars.put("slice_id", c.sliceIds().get(0));
            String profileText = g.render(profileType.templateName(), vars);
            vars.put("slice_id", c.sliceIds().get(1));
            String notesText = g.render(notesType.templateName(), vars);
            if (unlinked.contains(index)) {
                profileText = withoutLinks(profileText);
                notesText = withoutLinks(notesText);
            }
            write(profile, profileText, index);
            write(notes, notesText, index);
            String summary = "created " + type + " " + entityId;
            phrases.computeIfAbsent(profile, k -> new ArrayList<>()).add(summary);
            return new OpOutcome(c, profile, null, null, hasher.hash(MemoryDocument.canonicalize(profileText)), summary, true);
        }

        private static final Pattern LINKS_BLOCK = Pattern.compile("(?m)^  links:\n(?:    - .*\n|      .*\n)+");

        /** The text with its frontmatter's {@code slice.links} list emptied ({@code links: []}). */
        private static String withoutLinks(String text) {
            return LINKS_BLOCK.matcher(text).replaceFirst("  links: []\n");
        }

        /** The {@code slice.id} of an existing memory file, which new files link to. */
        private String sliceIdOf(RepoPath p) {
            MemoryDocument doc = MemoryDocument.parse(read(p).orElseThrow());
            String id = doc.frontmatter() == null ? "" : doc.frontmatter().path("slice").path("id").asText("");
            if (!ULID.matcher(id).matches()) {
                throw new Reject(Reason.INVALID_OP, p + " has no valid slice.id (a ULID) for the new files to link to;"
                        + " fix its frontmatter first");
            }
            return id;
        }

        private static void requireId(String field, String id) {
            if (id == null || !Grammar.ID.matcher(id).matches()) {
                throw new Reject(Reason.INVALID_OP, field + " '" + id + "' must match " + Grammar.ID.pattern());
            }
        }

        // ---------------------------------------------------------------- section ops

        /**
         * Governance (file-grammar §13): a user locks sections by listing their anchors (or
         * names) under {@code slice.meta.locked_sections}; agents' ops on them are refused. A
         * lock on a section covers its subsections.
         */
        private static void checkLock(MemoryDocument doc, RepoPath path, SectionDef def, String label) {
            com.fasterxml.jackson.databind.JsonNode locked = doc.frontmatter().path("slice").path("meta").path("locked_sections");
            if (locked.isTextual()) {
                locked = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode().add(locked.asText());
            }
            for (com.fasterxml.jackson.databind.JsonNode l : locked) {
                if (l.asText().equals(def.anchor()) || l.asText().equals(def.name())) {
                    throw new Reject(Reason.SECTION_LOCKED, "section '" + label + "' of " + path
                            + " is locked by its owner (slice.meta.locked_sections); only a human edits it",
                            Map.of("path", path.value(), "section", def.anchor()));
                }
            }
        }

        OpOutcome sectionOp(Op op, int index, RepoPath path, String sectionName) {
            PathMatch pm = g.match(path).orElseThrow(() ->
                    new Reject(Reason.INVALID_OP, "path '" + path + "' is not a memory file of any known type"));
            FileType type = pm.fileType();
            String text = read(path).orElseThrow(() -> new Reject(Reason.NOT_FOUND, "no file at " + path));
            MemoryDocument doc = trusted ? MemoryDocument.parseUncached(text) : MemoryDocument.parse(text);
            if (!trusted && doc.frontmatter() == null) {
                throw new Reject(Reason.DRIFT, path + " has no valid frontmatter; it waits for a maintainer");
            }
            Optional<SectionDef> defOpt = type.section(sectionName);
            MemoryDocument.Section target;
            SectionDef def;
            String anchor;
            String label;
            if (defOpt.isEmpty()) {
                // Only tombstone_section may name an H3 subsection by its heading.
                if (!(op instanceof TombstoneSection)) {
                    throw unknownSection(type, sectionName);
                }
                List<MemoryDocument.Section> h3 = doc.sections().stream()
                        .filter(s -> s.level() == 3 && (s.heading().equals(sectionName) || sectionName.equals(s.anchor())))
                        .toList();
                if (h3.isEmpty()) {
                    throw unknownSection(type, sectionName);
                }
                if (h3.size() > 1) {
                    throw new Reject(Reason.INVALID_OP, "subsection '" + sectionName + "' is ambiguous in " + path
                            + " (lines " + h3.stream().map(s -> String.valueOf(s.line())).toList() + ")");
                }
                target = h3.get(0);
                Optional<MemoryDocument.Section> parent = doc.parentOf(target);
                Optional<SectionDef> parentDef = parent.flatMap(p -> p.anchor() != null ? type.section(p.anchor()) : Optional.empty())
                        .or(() -> parent.flatMap(p -> type.section(p.heading())));
                if (parentDef.isEmpty() || !parentDef.get().tombstonable()) {
                    throw new Reject(Reason.PROHIBITED, "subsection '" + sectionName + "' lies in "
                            + parentDef.map(d -> "core section '" + d.name() + "'").orElse("no canonical section")
                            + "; only subsections of optional sections (Extensions, Open Questions, notes) may be tombstoned");
                }
                def = parentDef.get();
                anchor = def.anchor() + "/" + (target.anchor() != null ? target.anchor() : Grammar.slug(target.heading()));
                label = target.heading();
            } else {
                def = defOpt.get();
                if (def.kind() == SectionKind.LOG) {
                    throw new Reject(Reason.PROHIBITED, "the Change Log is written by the daemon");
                }
                List<MemoryDocument.Section> found = doc.find(def);
                if (found.isEmpty()) {
                    throw new Reject(Reason.DRIFT, "section '" + def.name() + "' is missing from " + path
                            + "; the file waits for a maintainer");
                }
                if (found.size() > 1) {
                    throw new Reject(Reason.DRIFT, "section '" + def.name() + "' appears " + found.size() + " times in "
                            + path + "; the file waits for a maintainer");
                }
                target = found.get(0);
                anchor = def.anchor();
                label = def.name();
                checkKind(op, def);
            }

            if (!trusted) {
                checkLock(doc, path, def, label);
            }
            String before = doc.canonicalBody(target);
            // Replay redoes accepted lines: no compare-and-swap, so no hashes to compute.
            String beforeHash = trusted && op.beforeHash() == null ? null : hasher.hash(before);
            if (op.beforeHash() != null && !op.beforeHash().equals(beforeHash)) {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("current_hash", beforeHash);
                throw new Reject(Reason.CONFLICT, "section '" + label + "' of " + path
                        + " changed since it was read (before_hash does not match)", d);
            }

            String body = target.body(text);
            boolean last = target.end() == text.length();
            String newBody;
            String summary;
            List<String> inline = new ArrayList<>();
            if (op instanceof ReplaceSection r) {
                String c = content(r.content(), "content");
                if (def.evidence()) {
                    for (Bodies.Bullet b : Bodies.bullets(c, 1)) {
                        evidence(b.text(), "content");
                    }
                }
                newBody = layout(c, last);
                summary = "replaced " + label;
            } else if (op instanceof AppendSection a) {
                String c = content(a.content(), "content");
                if (c.contains("\n\n") || c.lines().anyMatch(String::isBlank)) {
                    throw new Reject(Reason.INVALID_OP, "append_section takes one paragraph; content has blank lines");
                }
                newBody = layout(before.isEmpty() ? c : before + "\n" + c, last);
                summary = "appended to " + label;
            } else if (op instanceof AppendItem a) {
                String item = item(a.item(), "item");
                if (def.evidence()) {
                    evidence(item, "item");
                }
                newBody = appendBullet(body, before, item, last);
                summary = def.evidence() ? "added 1 evidence item" : "added 1 item to " + label;
            } else if (op instanceof CurateItems c) {
                newBody = curate(c, def, body, last);
                summary = "curated " + label;
                inline.add(date + ": curated " + label + ": " + line(c.reason(), "reason"));
            } else {
                TombstoneSection t = (TombstoneSection) op;
                if (defOpt.isPresent() && !def.tombstonable()) {
                    throw new Reject(Reason.PROHIBITED, "'" + def.name() + "' is a core section and can never be tombstoned");
                }
                newBody = layout("_Tombstoned " + date + ": " + line(t.reason(), "reason") + "_\n", last);
                summary = "tombstoned " + label;
            }

            String newText = MemoryDocument.splice(text, target.bodyStart(), target.end(), newBody);
            boolean changed = !newText.equals(text);
            String afterHash = null;
            if (!trusted) {
                MemoryDocument newDoc = MemoryDocument.parse(newText);
                checkStructure(doc, newDoc);
                MemoryDocument.Section after = newDoc.sections().stream()
                        .filter(s -> s.start() == target.start()).findFirst().orElseThrow();
                afterHash = hasher.hash(newDoc.canonicalBody(after));
                if (changed && (op instanceof ReplaceSection || op instanceof AppendSection || op instanceof AppendItem)) {
                    checkCaps(op, def, after.body(newText), path, inline);
                }
            } else if (changed && (op instanceof ReplaceSection || op instanceof AppendSection || op instanceof AppendItem)
                    && op.overrideRationale() != null) {
                // The Change Log line of an override is part of the text replay must reproduce.
                MemoryDocument newDoc = MemoryDocument.parse(newText);
                MemoryDocument.Section after = newDoc.sections().stream()
                        .filter(s -> s.start() == target.start()).findFirst().orElseThrow();
                checkCaps(op, def, after.body(newText), path, inline);
            }
            if (changed) {
                for (String l : inline) {
                    newText = addChangeLogLine(newText, type, path, l);
                }
                write(path, newText, index);
                phrases.computeIfAbsent(path, k -> new ArrayList<>()).add(summary);
            }
            return new OpOutcome(op, path, anchor, beforeHash, afterHash, summary, changed);
        }

        private Reject unknownSection(FileType type, String name) {
            List<String> names = type.sections().stream().filter(s -> s.kind() != SectionKind.LOG).map(SectionDef::name).toList();
            return new Reject(Reason.UNKNOWN_SECTION, "'" + name + "' is not a section of a " + type.name()
                    + " file; valid sections: " + String.join(", ", names));
        }

        private static void checkKind(Op op, SectionDef def) {
            SectionKind k = def.kind();
            boolean ok;
            if (op instanceof ReplaceSection || op instanceof AppendSection) {
                ok = k == SectionKind.NARRATIVE || k == SectionKind.EXTENSIONS || (op instanceof ReplaceSection && k == SectionKind.LIST);
            } else if (op instanceof AppendItem || op instanceof CurateItems) {
                ok = k == SectionKind.LIST;
            } else {
                ok = true; // tombstone: decided by core-ness
            }
            if (!ok) {
                throw new Reject(Reason.INVALID_OP, op.opName() + " is not allowed on " + k.wireName()
                        + " section '" + def.name() + "'");
            }
        }

        /** Canonical content (no leading/trailing blank lines, ends in \n) after validation. */
        private static String content(String raw, String field) {
            String c = MemoryDocument.canonicalize(raw);
            if (c.isEmpty()) {
                throw new Reject(Reason.INVALID_OP, field + " must not be empty");
            }
            String problem = Bodies.structureProblem(c);
            if (problem != null) {
                throw new Reject(Reason.PROHIBITED, field + ": " + problem);
            }
            return c;
        }

        /** A bullet's text: no blank lines, no structure, trimmed of surrounding blank lines. */
        private static String item(String raw, String field) {
            String c = content(raw, field);
            c = c.substring(0, c.length() - 1);
            if (c.lines().anyMatch(String::isBlank)) {
                throw new Reject(Reason.INVALID_OP, field + " must not contain blank lines");
            }
            return c;
        }

        /** A one-line, non-empty text (reasons). */
        private static String line(String raw, String field) {
            if (raw == null || raw.isBlank()) {
                throw new Reject(Reason.INVALID_OP, field + " is required");
            }
            String s = raw.strip();
            if (s.contains("\n") || s.contains("\r")) {
                throw new Reject(Reason.INVALID_OP, field + " must be one line");
            }
            if (Bodies.structureProblem(s) != null) {
                throw new Reject(Reason.PROHIBITED, field + ": " + Bodies.structureProblem(s));
            }
            return s;
        }

        private static void evidence(String item, String field) {
            String p = Bodies.evidenceProblem(item);
            if (p != null) {
                throw new Reject(Reason.INVALID_OP, field + ": " + p);
            }
        }

        /** Body layout: blank line, canonical content, blank line before the next heading. */
        private static String layout(String canonical, boolean last) {
            if (canonical.isEmpty()) {
                return last ? "" : "\n";
            }
            return "\n" + canonical + (last ? "" : "\n");
        }

        /** Inserts a bullet after the last bullet, keeping the rest of the body as it is. */
        private static String appendBullet(String body, String canonical, String item, boolean last) {
            List<Bodies.Bullet> bullets = Bodies.bullets(body, 1);
            if (bullets.isEmpty()) {
                return layout(canonical.isEmpty() ? Bodies.bullet(item) : canonical + "\n" + Bodies.bullet(item), last);
            }
            int at = bullets.get(bullets.size() - 1).end();
            String sep = at > 0 && body.charAt(at - 1) != '\n' ? "\n" : "";
            return body.substring(0, at) + sep + Bodies.bullet(item) + body.substring(at);
        }

        private String curate(CurateItems c, SectionDef def, String body, boolean last) {
            line(c.reason(), "reason");
            if (c.remove().isEmpty() && c.merge().isEmpty()) {
                throw new Reject(Reason.INVALID_OP, "curate_items needs items to remove or merge");
            }
            List<Bodies.Bullet> bullets = Bodies.bullets(body, 1);
            // claim[i]: -1 keep, -2 remove, g >= 0 merged into group g.
            int[] claim = new int[bullets.size()];
            java.util.Arrays.fill(claim, -1);
            for (String r : c.remove()) {
                claim[find(bullets, claim, r, def)] = -2;
            }
            for (int gi = 0; gi < c.merge().size(); gi++) {
                CurateItems.Merge m = c.merge().get(gi);
                if (m.items().size() < 2) {
                    throw new Reject(Reason.INVALID_OP, "merge[" + gi + "].items needs at least two items");
                }
                String into = item(m.into(), "merge[" + gi + "].into");
                if (def.evidence()) {
                    evidence(into, "merge[" + gi + "].into");
                }
                for (String it : m.items()) {
                    claim[find(bullets, claim, it, def)] = gi;
                }
            }
            StringBuilder out = new StringBuilder();
            Set<Integer> emitted = new HashSet<>();
            int cursor = 0;
            for (int i = 0; i < bullets.size(); i++) {
                Bodies.Bullet b = bullets.get(i);
                out.append(body, cursor, b.start());
                if (claim[i] == -1) {
                    out.append(body, b.start(), b.end());
                } else if (claim[i] >= 0 && emitted.add(claim[i])) {
                    out.append(Bodies.bullet(MemoryDocument.canonicalize(c.merge().get(claim[i]).into()).strip()));
                }
                cursor = b.end();
            }
            out.append(body.substring(cursor));
            String result = out.toString();
            String canon = MemoryDocument.canonicalize(result);
            // Keep the one-blank-line layout when curation empties the list or leaves stray blank lines.
            return canon.isEmpty() || !result.equals(layout(canon, last)) && result.contains("\n\n\n")
                    ? layout(canon, last) : result;
        }

        private static int find(List<Bodies.Bullet> bullets, int[] claim, String text, SectionDef def) {
            for (int i = 0; i < bullets.size(); i++) {
                if (claim[i] == -1 && bullets.get(i).text().equals(text)) {
                    return i;
                }
            }
            boolean exists = bullets.stream().anyMatch(b -> b.text().equals(text));
            if (exists) {
                throw new Reject(Reason.INVALID_OP, "item '" + text + "' is named twice in this curation");
            }
            throw new Reject(Reason.NOT_FOUND, "no item '" + text + "' in section '" + def.name() + "'");
        }

        private void checkCaps(Op op, SectionDef def, String newBody, RepoPath path, List<String> inline) {
            int limit;
            int actual;
            String unit;
            if (def.kind() == SectionKind.NARRATIVE && def.maxWords().isPresent()) {
                limit = def.maxWords().getAsInt();
                actual = Bodies.words(newBody);
                unit = "words";
            } else if (def.kind() == SectionKind.LIST && def.maxItems().isPresent()) {
                limit = def.maxItems().getAsInt();
                actual = Bodies.bullets(newBody, 1).size();
                unit = "items";
            } else {
                return;
            }
            if (actual <= limit) {
                return;
            }
            String why = op.overrideRationale();
            if (why == null || why.isBlank()) {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("limit", limit);
                d.put("actual", actual);
                d.put("unit", unit);
                throw new Reject(Reason.CAP_EXCEEDED, "section '" + def.name() + "' of " + path + " would have " + actual
                        + " " + unit + " (cap " + limit + "); give override_rationale to exceed it", d);
            }
            inline.add(date + ": cap override on " + def.name() + ": " + line(why, "override_rationale"));
        }

        /** Headings, anchors, title and frontmatter must be unchanged by a section op. */
        private static void checkStructure(MemoryDocument before, MemoryDocument after) {
            if (!structure(before).equals(structure(after))) {
                throw new Reject(Reason.PROHIBITED, "content would change the file's structure (headings, anchors or"
                        + " frontmatter), e.g. through an unclosed code fence or HTML comment");
            }
        }

        private static List<String> structure(MemoryDocument d) {
            List<String> s = new ArrayList<>();
            s.add(d.frontmatterSpan().map(sp -> d.text().substring(sp.start(), sp.end())).orElse(""));
            s.add(d.title().orElse(""));
            for (MemoryDocument.Section sec : d.h2Sections()) {
                s.add(sec.heading() + "\u0000" + sec.anchor());
            }
            return s;
        }

        // ---------------------------------------------------------------- Change Log

        private String addChangeLogLine(String text, FileType type, RepoPath path, String line) {
            Optional<SectionDef> cl = type.changeLog();
            if (cl.isEmpty()) {
                return text; // notes files have no Change Log
            }
            MemoryDocument doc = MemoryDocument.parse(text);
            MemoryDocument.Section s = changeLogOf(doc, cl.get(), path);
            String body = s.body(text);
            String newBody = appendBullet(body, doc.canonicalBody(s), line, s.end() == text.length());
            return MemoryDocument.splice(text, s.bodyStart(), s.end(), newBody);
        }

        private static MemoryDocument.Section changeLogOf(MemoryDocument doc, SectionDef cl, RepoPath path) {
            List<MemoryDocument.Section> found = doc.find(cl);
            if (found.size() != 1) {
                throw new Reject(Reason.DRIFT, "the Change Log of " + path + " is missing or duplicated; the file waits for a maintainer");
            }
            return found.get(0);
        }

        /** Merges this declaration's phrases into the day's rollup bullet. */
        private String rollup(String text, FileType type, RepoPath path, List<String> newPhrases) {
            Optional<SectionDef> cl = type.changeLog();
            if (cl.isEmpty() || newPhrases.isEmpty()) {
                return text;
            }
            MemoryDocument doc = MemoryDocument.parse(text);
            MemoryDocument.Section s = changeLogOf(doc, cl.get(), path);
            String body = s.body(text);
            String prefix = date + ": ";
            for (Bodies.Bullet b : Bodies.bullets(body, 1)) {
                if (!b.text().startsWith(prefix) || b.text().contains("\n")) {
                    continue;
                }
                List<String> existing = List.of(b.text().substring(prefix.length()).split("; "));
                if (existing.stream().allMatch(Declarations::isRollupPhrase)) {
                    List<String> merged = new ArrayList<>(existing);
                    merged.addAll(newPhrases);
                    String newBody = body.substring(0, b.start()) + Bodies.bullet(prefix + mergePhrases(merged)) + body.substring(b.end());
                    return MemoryDocument.splice(text, s.bodyStart(), s.end(), newBody);
                }
            }
            String newBody = appendBullet(body, doc.canonicalBody(s), prefix + mergePhrases(newPhrases), s.end() == text.length());
            return MemoryDocument.splice(text, s.bodyStart(), s.end(), newBody);
        }

        // ---------------------------------------------------------------- finish

        Map<RepoPath, String> finish() {
            Map<RepoPath, String> out = new LinkedHashMap<>();
            for (RepoPath p : touched) {
                String text = working.get(p).orElseThrow();
                String orig = original.get(p);
                if (text.equals(orig)) {
                    continue;
                }
                FileType type = g.fileTypeOf(p).orElseThrow();
                try {
                    text = rollup(text, type, p, phrases.getOrDefault(p, List.of()));
                    text = setLastUpdated(text);
                } catch (Reject r) {
                    throw withOp(r, p);
                }
                if (!trusted) {
                    postLint(p, orig, text);
                }
                out.put(p, text);
            }
            return out;
        }

        private Reject withOp(Reject r, RepoPath p) {
            Map<String, Object> d = new LinkedHashMap<>(r.details);
            d.put("op_index", lastOp.get(p));
            return new Reject(r.reason, r.getMessage(), d);
        }

        private String setLastUpdated(String text) {
            int fmEnd = MemoryDocument.frontmatterEnd(text);
            if (fmEnd < 0) {
                return text;
            }
            Matcher m = LAST_UPDATED.matcher(text).region(0, fmEnd);
            if (!m.find()) {
                return text;
            }
            String old = m.group(2);
            String value = old.startsWith("\"") ? "\"" + nowText + "\"" : old.startsWith("'") ? "'" + nowText + "'" : nowText;
            return MemoryDocument.splice(text, m.start(2), m.end(2), value);
        }

        /**
         * Lint findings of a text, cached: the text a write starts from is usually the one the
         * previous write produced and linted.
         */
        private List<String> lintKeys(Linter linter, RepoPath p, String text) {
            LintKey key = new LintKey(g, p, text);
            synchronized (LINTED) {
                List<String> hit = LINTED.get(key);
                if (hit != null) {
                    return hit;
                }
            }
            List<String> keys = linter.lint(g, p, text).stream().map(x -> x.rule() + ": " + x.message()).toList();
            synchronized (LINTED) {
                LINTED.put(key, keys);
            }
            return keys;
        }

        /** A write must not add lint problems other than caps (caps are decided per op). */
        private void postLint(RepoPath p, String orig, String text) {
            Linter linter = new Linter();
            List<String> before = orig == null ? List.of() : lintKeys(linter, p, orig);
            List<String> remaining = new ArrayList<>(before);
            List<LintProblem> after = linter.lint(g, p, text);
            synchronized (LINTED) {
                LINTED.put(new LintKey(g, p, text), after.stream().map(x -> x.rule() + ": " + x.message()).toList());
            }
            for (LintProblem x : after) {
                if (x.rule().startsWith("cap-")) {
                    continue;
                }
                if (!remaining.remove(x.rule() + ": " + x.message())) {
                    Map<String, Object> d = new LinkedHashMap<>();
                    d.put("op_index", lastOp.get(p));
                    d.put("rule", x.rule());
                    d.put("line", x.line());
                    throw new Reject(Reason.SPEC_VIOLATION, p + ":" + x.line() + ": the result would violate "
                            + x.rule() + ": " + x.message(), d);
                }
            }
        }
    }

    static boolean isRollupPhrase(String phrase) {
        if (!PHRASE.matcher(phrase).matches()) {
            return false;
        }
        // Inline entries ("curated X: reason") carry ": " after the section name.
        return !phrase.contains(": ");
    }

    /** Dedupes phrases and sums "added N ..." counts, keeping first-seen order. */
    static String mergePhrases(List<String> phrases) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String p : phrases) {
            Matcher ev = ADDED_EVIDENCE.matcher(p);
            Matcher it = ADDED_ITEMS.matcher(p);
            if (ev.matches()) {
                counts.merge("\u0001evidence", Integer.parseInt(ev.group(1)), Integer::sum);
            } else if (it.matches()) {
                counts.merge("\u0002" + it.group(2), Integer.parseInt(it.group(1)), Integer::sum);
            } else {
                counts.putIfAbsent(p, 0);
            }
        }
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            String k = e.getKey();
            int n = e.getValue();
            if (k.startsWith("\u0001")) {
                out.add("added " + n + (n == 1 ? " evidence item" : " evidence items"));
            } else if (k.startsWith("\u0002")) {
                out.add("added " + n + (n == 1 ? " item to " : " items to ") + k.substring(1));
            } else {
                out.add(k);
            }
        }
        return String.join("; ", out);
    }
}
