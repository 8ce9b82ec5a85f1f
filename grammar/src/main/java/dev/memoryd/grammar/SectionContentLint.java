package dev.memoryd.grammar;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The content findings of one canonical section (its word cap, item cap and evidence bullets),
 * kept for large bodies so that a write to one section of a large file does not lint the others'
 * bodies again.
 *
 * <p>Content findings depend only on the section's definition, its body's text and where the
 * body starts; a kept finding is stored relative to the body's first line (or, for a cap, to the
 * heading's line) and moved to where the section is now. A kept body is reused only when the
 * document holds exactly its characters at the section's place; the body is not hashed. Bodies
 * under {@link #KEPT_FROM} chars are linted every time: that is cheaper than keeping them.
 * Thread-safe under its lock.
 */
final class SectionContentLint {
    /** Bodies this long and longer are kept; a write's own section is usually shorter. */
    static final int KEPT_FROM = 4096;

    private record Key(String path, SectionDef def) {}

    /** A finding, with its line relative to the heading (a cap) or to the body's first line. */
    private record Kept(LintProblem problem, boolean atHeading, int offset) {}

    private record Entry(String body, List<Kept> findings) {}

    /** Sized for the large sections of a few dozen files; each holds its body once. */
    private static final Map<Key, Entry> KEPT = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Entry> e) {
            return size() > 32;
        }
    };

    private SectionContentLint() {}

    /** Drops every kept body, so the next lint of each is a fresh one. */
    static void forget() {
        synchronized (KEPT) {
            KEPT.clear();
        }
    }

    /** Adds {@code s}'s content findings under definition {@code d} to {@code out}. */
    static void lint(MemoryDocument doc, SectionDef d, MemoryDocument.Section s, String p, List<LintProblem> out) {
        int length = s.end() - s.bodyStart();
        int bodyLine = doc.lineOf(s.bodyStart());
        if (length < KEPT_FROM) {
            lintBody(s.body(doc.text()), bodyLine, d, s, p, out);
            return;
        }
        Key key = new Key(p, d);
        Entry e;
        synchronized (KEPT) {
            e = KEPT.get(key);
        }
        // Compared in place (vectorised, block by block): a copy of a 200 KB body per lint was a
        // whole copy of the file per write, and regionMatches' loop takes seven times as long.
        if (e != null && s.bodyIs(doc.text(), e.body())) {
            for (Kept k : e.findings()) {
                int line = (k.atHeading() ? s.line() : bodyLine) + k.offset();
                out.add(new LintProblem(p, line, k.problem().rule(), k.problem().message()));
            }
            return;
        }
        String body = s.body(doc.text());
        List<LintProblem> found = new ArrayList<>();
        lintBody(body, bodyLine, d, s, p, found);
        List<Kept> kept = new ArrayList<>(found.size());
        for (LintProblem x : found) {
            boolean atHeading = x.rule().startsWith("cap-");
            kept.add(new Kept(x, atHeading, x.line() - (atHeading ? s.line() : bodyLine)));
        }
        synchronized (KEPT) {
            KEPT.put(key, new Entry(body, List.copyOf(kept)));
        }
        out.addAll(found);
    }

    private static void lintBody(
            String body, int bodyLine, SectionDef d, MemoryDocument.Section s, String p, List<LintProblem> out) {
        if (d.kind() == SectionKind.NARRATIVE && d.maxWords().isPresent()) {
            int words = Bodies.words(body);
            if (words > d.maxWords().getAsInt()) {
                out.add(new LintProblem(
                        p,
                        s.line(),
                        "cap-words",
                        "section '" + d.name() + "' has " + words + " words; the cap is "
                                + d.maxWords().getAsInt()));
            }
        }
        if (d.kind() == SectionKind.LIST) {
            List<Bodies.Bullet> bullets = Bodies.bullets(body, bodyLine);
            if (d.maxItems().isPresent() && bullets.size() > d.maxItems().getAsInt()) {
                out.add(new LintProblem(
                        p,
                        s.line(),
                        "cap-items",
                        "section '" + d.name() + "' has " + bullets.size() + " items; the cap is "
                                + d.maxItems().getAsInt()));
            }
            if (d.evidence()) {
                for (Bodies.Bullet b : bullets) {
                    String problem = Bodies.evidenceProblem(b.text());
                    if (problem != null) {
                        out.add(new LintProblem(p, b.line(), "evidence-token", problem));
                    }
                }
            }
        }
    }
}
