package dev.memoryd.grammar;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Change Log the daemon writes in each changed file: one rollup bullet per day, whose
 * phrases a later declaration of the same day merges into (summing "added N" counts), plus
 * inline lines for curations and cap overrides. Files without a Change Log (notes) are left as
 * they are; a file whose Change Log is missing or duplicated is refused ({@code drift}). Pure.
 */
final class ChangeLog {
    private static final Pattern ADDED_EVIDENCE = Pattern.compile("added (\\d+) evidence items?");
    private static final Pattern ADDED_ITEMS = Pattern.compile("added (\\d+) items? to (.+)");
    private static final Pattern PHRASE = Pattern.compile(
            "(?:replaced|appended to|curated|tombstoned) .+|added \\d+ evidence items?|added \\d+ items? to .+"
                    + "|created (?:user|part|relationship) [a-z0-9][a-z0-9_-]*");

    private ChangeLog() {}

    /** The document with {@code line} appended to its Change Log as a bullet of its own. */
    static MemoryDocument addLine(MemoryDocument doc, FileType type, RepoPath path, String line) {
        Optional<SectionDef> cl = type.changeLog();
        if (cl.isEmpty()) {
            return doc; // notes files have no Change Log
        }
        String text = doc.text();
        MemoryDocument.Section s = changeLogOf(doc, cl.get(), path);
        String body = s.body(text);
        String newBody = OpText.appendBullet(body, doc.canonicalBody(s), line, s.end() == text.length());
        return doc.splice(s.bodyStart(), s.end(), newBody);
    }

    /** Merges a declaration's phrases into the rollup bullet of {@code date} (yyyy-mm-dd). */
    static MemoryDocument rollup(
            MemoryDocument doc, FileType type, RepoPath path, String date, List<String> newPhrases) {
        Optional<SectionDef> cl = type.changeLog();
        if (cl.isEmpty() || newPhrases.isEmpty()) {
            return doc;
        }
        String text = doc.text();
        MemoryDocument.Section s = changeLogOf(doc, cl.get(), path);
        String body = s.body(text);
        String prefix = date + ": ";
        for (Bodies.Bullet b : Bodies.bullets(body, 1)) {
            if (!b.text().startsWith(prefix) || b.text().contains("\n")) {
                continue;
            }
            List<String> existing = List.of(b.text().substring(prefix.length()).split("; "));
            if (existing.stream().allMatch(ChangeLog::isRollupPhrase)) {
                List<String> merged = new ArrayList<>(existing);
                merged.addAll(newPhrases);
                String newBody = body.substring(0, b.start())
                        + Bodies.bullet(prefix + mergePhrases(merged))
                        + body.substring(b.end());
                return doc.splice(s.bodyStart(), s.end(), newBody);
            }
        }
        String newBody = OpText.appendBullet(
                body, doc.canonicalBody(s), prefix + mergePhrases(newPhrases), s.end() == text.length());
        return doc.splice(s.bodyStart(), s.end(), newBody);
    }

    private static MemoryDocument.Section changeLogOf(MemoryDocument doc, SectionDef cl, RepoPath path) {
        List<MemoryDocument.Section> found = doc.find(cl);
        if (found.size() != 1) {
            throw new OpRejected(
                    Reason.DRIFT,
                    "the Change Log of " + path + " is missing or duplicated; the file waits for a maintainer");
        }
        return found.get(0);
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
