package dev.memoryd.grammar;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What every section op shares: finds its target section (a grammar section, or for
 * {@code tombstone_section} an H3 subsection of an optional one), checks the op's kind, the
 * owner's lock and the {@code before_hash}, lets the op's applier compute the new body, then
 * checks that the file's structure is unchanged and the section's cap, and records the result
 * and its Change Log lines in the run. A declaration being replayed ({@link DeclarationRun#trusted})
 * skips the checks the ledger already passed, but reproduces the Change Log line of a cap override.
 */
final class SectionOpApplier {
    private SectionOpApplier() {}

    static OpOutcome apply(DeclarationRun run, Op op, int index, RepoPath path, String sectionName) {
        Grammar g = run.g;
        boolean trusted = run.trusted;
        PathMatch pm = g.match(path)
                .orElseThrow(() -> new OpRejected(
                        Reason.INVALID_OP, "path '" + path + "' is not a memory file of any known type"));
        FileType type = pm.fileType();
        String text = run.read(path).orElseThrow(() -> new OpRejected(Reason.NOT_FOUND, "no file at " + path));
        MemoryDocument doc = run.doc(path, text);
        if (!trusted && doc.frontmatter() == null) {
            throw new OpRejected(Reason.DRIFT, path + " has no valid frontmatter; it waits for a maintainer");
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
                throw new OpRejected(
                        Reason.INVALID_OP,
                        "subsection '" + sectionName + "' is ambiguous in " + path + " (lines "
                                + h3.stream().map(s -> String.valueOf(s.line())).toList() + ")");
            }
            target = h3.get(0);
            Optional<MemoryDocument.Section> parent = doc.parentOf(target);
            Optional<SectionDef> parentDef = parent.flatMap(
                            p -> p.anchor() != null ? type.section(p.anchor()) : Optional.empty())
                    .or(() -> parent.flatMap(p -> type.section(p.heading())));
            if (parentDef.isEmpty() || !parentDef.get().tombstonable()) {
                throw new OpRejected(
                        Reason.PROHIBITED,
                        "subsection '" + sectionName + "' lies in "
                                + parentDef
                                        .map(d -> "core section '" + d.name() + "'")
                                        .orElse("no canonical section")
                                + "; only subsections of optional sections (Extensions, Open Questions, notes) may be tombstoned");
            }
            def = parentDef.get();
            anchor = def.anchor() + "/" + (target.anchor() != null ? target.anchor() : Grammar.slug(target.heading()));
            label = target.heading();
        } else {
            def = defOpt.get();
            if (def.kind() == SectionKind.LOG) {
                throw new OpRejected(Reason.PROHIBITED, "the Change Log is written by the daemon");
            }
            List<MemoryDocument.Section> found = doc.find(def);
            if (found.isEmpty() && !type.requiredSections()) {
                // The file type's sections are optional: one a person removed is simply not there.
                throw new OpRejected(
                        Reason.UNKNOWN_SECTION,
                        "section '" + def.name() + "' is not in " + path + ": this file's sections are optional and"
                                + " someone removed it; to write to it, add the section back to the file ('## "
                                + def.name() + "' and its anchor comment)");
            }
            if (found.isEmpty()) {
                throw new OpRejected(
                        Reason.DRIFT,
                        "section '" + def.name() + "' is missing from " + path + "; the file waits for a maintainer");
            }
            if (found.size() > 1) {
                throw new OpRejected(
                        Reason.DRIFT,
                        "section '" + def.name() + "' appears " + found.size() + " times in " + path
                                + "; the file waits for a maintainer");
            }
            target = found.get(0);
            anchor = def.anchor();
            label = def.name();
            checkKind(op, def);
        }

        if (!trusted) {
            CapsAndLocks.checkLock(doc, path, def, label);
            checkClosed(op);
        }
        String before = doc.canonicalBody(target);
        // Replay redoes accepted lines: no compare-and-swap, so no hashes to compute.
        String beforeHash = trusted && op.beforeHash() == null ? null : run.hasher.hash(before);
        if (op.beforeHash() != null && !op.beforeHash().equals(beforeHash)) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("current_hash", beforeHash);
            throw new OpRejected(
                    Reason.CONFLICT,
                    "section '" + label + "' of " + path + " changed since it was read (before_hash does not match)",
                    d);
        }

        SectionEdit.Target t = new SectionEdit.Target(
                def, label, text, target, before, target.end() == text.length(), defOpt.isPresent(), run.date);
        SectionEdit edit = edit(op, t);
        List<String> inline = new ArrayList<>(edit.inline());

        // Replay needs the new document only for an override's Change Log line: it splices text alone.
        MemoryDocument newDoc = trusted ? null : doc.splice(target.bodyStart(), target.end(), edit.newBody());
        String newText = newDoc != null
                ? newDoc.text()
                : MemoryDocument.splice(text, target.bodyStart(), target.end(), edit.newBody());
        boolean changed = !newText.equals(text);
        boolean capped = op instanceof ReplaceSection || op instanceof AppendSection || op instanceof AppendItem;
        String afterHash = null;
        if (!trusted) {
            checkStructure(doc, newDoc);
            MemoryDocument.Section after = newDoc.sections().stream()
                    .filter(s -> s.start() == target.start())
                    .findFirst()
                    .orElseThrow();
            afterHash = run.hasher.hash(newDoc.canonicalBody(after));
            if (changed && capped) {
                CapsAndLocks.checkCaps(op, def, after.body(newText), path, run.date)
                        .ifPresent(inline::add);
            }
        } else if (changed && capped && op.overrideRationale() != null) {
            // The Change Log line of an override is part of the text replay must reproduce.
            MemoryDocument replayed = MemoryDocument.parse(newText);
            MemoryDocument.Section after = replayed.sections().stream()
                    .filter(s -> s.start() == target.start())
                    .findFirst()
                    .orElseThrow();
            CapsAndLocks.checkCaps(op, def, after.body(newText), path, run.date).ifPresent(inline::add);
        }
        if (changed && newDoc != null) {
            for (String l : inline) {
                newDoc = ChangeLog.addLine(newDoc, type, path, l);
            }
            run.write(path, newDoc, index);
            run.addPhrase(path, edit.summary());
        } else if (changed) {
            for (String l : inline) {
                newText = ChangeLog.addLine(MemoryDocument.parseUncached(newText), type, path, l)
                        .text();
            }
            run.write(path, newText, index);
            run.addPhrase(path, edit.summary());
        }
        return new OpOutcome(op, path, anchor, beforeHash, afterHash, edit.summary(), changed);
    }

    /** The op's own change of the body, by its applier. */
    private static SectionEdit edit(Op op, SectionEdit.Target t) {
        if (op instanceof ReplaceSection r) {
            return ReplaceSectionApplier.apply(r, t);
        }
        if (op instanceof AppendSection a) {
            return AppendSectionApplier.apply(a, t);
        }
        if (op instanceof AppendItem a) {
            return AppendItemApplier.apply(a, t);
        }
        if (op instanceof CurateItems c) {
            return CurateItemsApplier.apply(c, t);
        }
        return TombstoneSectionApplier.apply((TombstoneSection) op, t);
    }

    private static OpRejected unknownSection(FileType type, String name) {
        List<String> names = type.sections().stream()
                .filter(s -> s.kind() != SectionKind.LOG)
                .map(SectionDef::name)
                .toList();
        return new OpRejected(
                Reason.UNKNOWN_SECTION,
                "'" + name + "' is not a section of a " + type.name() + " file; valid sections: "
                        + String.join(", ", names));
    }

    private static void checkKind(Op op, SectionDef def) {
        SectionKind k = def.kind();
        boolean ok;
        if (op instanceof ReplaceSection || op instanceof AppendSection) {
            ok = k == SectionKind.NARRATIVE
                    || k == SectionKind.EXTENSIONS
                    || (op instanceof ReplaceSection && k == SectionKind.LIST);
        } else if (op instanceof AppendItem || op instanceof CurateItems) {
            ok = k == SectionKind.LIST;
        } else {
            ok = true; // tombstone: decided by core-ness
        }
        if (!ok) {
            throw new OpRejected(
                    Reason.INVALID_OP,
                    op.opName() + " is not allowed on " + k.wireName() + " section '" + def.name() + "'");
        }
    }

    /**
     * A new text must close every code fence and HTML comment it opens: in the file's last section
     * one left open changes no heading, but makes code of, or hides, all that is written after it.
     * Nor may it underline a line as a heading ({@code ===} or {@code ---} under text): memory
     * files are structured by {@code #} headings alone, but a reader's renderer shows an H1 or H2
     * there, a section that is not one. Not asked of a replayed declaration, which was recorded
     * before these rules.
     */
    private static void checkClosed(Op op) {
        String content =
                op instanceof ReplaceSection r ? r.content() : op instanceof AppendSection a ? a.content() : null;
        if (content == null) {
            return;
        }
        String text = MemoryDocument.canonicalize(content);
        String problem = MarkdownBlocks.openBlockProblem(text);
        if (problem != null) {
            throw new OpRejected(Reason.PROHIBITED, "content " + problem);
        }
        List<MarkdownBlocks.SetextHeading> underlined = MarkdownBlocks.setextHeadings(text);
        if (!underlined.isEmpty()) {
            MarkdownBlocks.SetextHeading h = underlined.get(0);
            throw new OpRejected(
                    Reason.PROHIBITED,
                    "content line " + (h.underline() + 1) + " (" + (h.level() == 1 ? "===" : "---")
                            + ") underlines line " + (h.first() + 1) + " as an H" + h.level()
                            + " heading, which would render as a section heading; put a blank line before a"
                            + " rule, or use ### for a heading inside the section");
        }
    }

    /** Headings, anchors, title and frontmatter must be unchanged by a section op. */
    private static void checkStructure(MemoryDocument before, MemoryDocument after) {
        if (!structure(before).equals(structure(after))) {
            throw new OpRejected(
                    Reason.PROHIBITED,
                    "content would change the file's structure (headings, anchors or"
                            + " frontmatter), e.g. through an unclosed code fence or HTML comment");
        }
    }

    private static List<String> structure(MemoryDocument d) {
        List<String> s = new ArrayList<>();
        s.add(d.frontmatterSpan()
                .map(sp -> d.text().substring(sp.start(), sp.end()))
                .orElse(""));
        s.add(d.title().orElse(""));
        for (MemoryDocument.Section sec : d.h2Sections()) {
            s.add(sec.heading() + "\u0000" + sec.anchor());
        }
        return s;
    }
}
