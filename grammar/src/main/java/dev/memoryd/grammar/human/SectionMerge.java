package dev.memoryd.grammar.human;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Three-way merge of one memory file, region by region ({@link HumanEdits#regions}: {@code _head}
 * for frontmatter and title, then one region per H2 keyed by its anchor). Pure and stateless.
 *
 * <p>Per region: unchanged on one side takes the other side; the same change on both sides is
 * taken once; different changes on both sides are a conflict, unless the caller resolved that
 * region. Two regions are resolved automatically because every write touches them:
 * <ul>
 *   <li>{@code _head}: {@code last_updated} is set aside, the rest merges as above, and the later
 *       of the two sides' {@code last_updated} values is written back;
 *   <li>{@code change-log}: the union of both sides' lines, lines new on either side sorted by
 *       their date ({@code - YYYY-MM-DD...}, stable: ours first on equal dates); a line one side
 *       removed is removed.
 * </ul>
 * A region that exists on one side only (added there) is kept; one removed on one side and
 * unchanged on the other is removed; removed on one side and changed on the other is a conflict.
 * A file is never given line-level conflict markers: a conflict is returned, not written.
 */
public final class SectionMerge {
    /** The key of a conflict about the whole file (added, deleted or not a memory file on both sides). */
    public static final String WHOLE_FILE = "_file";
    /** The region key of the Change Log. */
    public static final String CHANGE_LOG = "change-log";

    private static final Pattern LAST_UPDATED =
            Pattern.compile("(?m)^([ \\t]+last_updated:[ \\t]*)([^\\r\\n]*?)([ \\t]*)(\\r?)$");
    private static final String PLACEHOLDER = "\u0000last_updated\u0000";
    private static final Pattern DATED = Pattern.compile("^- (\\d{4}-\\d{2}-\\d{2})");

    private SectionMerge() {}

    /** One region changed differently on both sides; texts are whole regions, null when absent. */
    public record Conflict(String section, String base, String ours, String theirs) {}

    /** The outcome of a merge: the merged text (null: the file is gone), or the conflicts. */
    public sealed interface Result {}

    /** Merged cleanly (with any resolutions given). */
    public record Merged(String text) implements Result {}

    /** Nothing merged: these regions need a resolution. */
    public record Conflicts(List<Conflict> conflicts) implements Result {
        public Conflicts {
            conflicts = List.copyOf(conflicts);
        }
    }

    /**
     * Merges a memory file. {@code resolved} maps a region key to the region text to take (the
     * caller's pick of ours, theirs or new content); a resolution for {@link #WHOLE_FILE} is the
     * whole text (null: delete). Any of the three texts may be null (the file is absent there).
     */
    public static Result merge(String base, String ours, String theirs, Map<String, String> resolved) {
        if (Objects.equals(ours, theirs) || Objects.equals(theirs, base)) {
            return new Merged(ours);
        }
        if (Objects.equals(ours, base)) {
            return new Merged(theirs);
        }
        if (resolved.containsKey(WHOLE_FILE)) {
            return new Merged(resolved.get(WHOLE_FILE));
        }
        if (ours == null || theirs == null) {
            return new Conflicts(List.of(new Conflict(WHOLE_FILE, base, ours, theirs)));
        }
        Map<String, String> b = base == null ? Map.of() : byKey(base);
        Map<String, String> o = byKey(ours);
        Map<String, String> t = byKey(theirs);
        List<Conflict> conflicts = new ArrayList<>();
        StringBuilder out = new StringBuilder();
        for (String key : order(o, t)) {
            String bv = b.get(key);
            String ov = o.get(key);
            String tv = t.get(key);
            String merged;
            boolean ok = true;
            if (resolved.containsKey(key)) {
                merged = resolved.get(key);
            } else if (Objects.equals(ov, tv) || Objects.equals(tv, bv)) {
                merged = ov; // null: removed on both sides, or on ours while theirs left it alone
            } else if (Objects.equals(ov, bv)) {
                merged = tv;
            } else if (key.equals(HumanEdits.HEAD) && ov != null && tv != null) {
                merged = mergeHead(bv, ov, tv);
                ok = merged != null;
            } else if (key.equals(CHANGE_LOG) && ov != null && tv != null) {
                merged = mergeChangeLog(bv, ov, tv);
                ok = merged != null;
            } else {
                merged = null;
                ok = false;
            }
            if (!ok) {
                conflicts.add(new Conflict(key, bv, ov, tv));
            } else if (merged != null) {
                out.append(merged);
            }
        }
        return conflicts.isEmpty() ? new Merged(out.toString()) : new Conflicts(conflicts);
    }

    private static Map<String, String> byKey(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        for (HumanEdits.Region r : HumanEdits.regions(text)) {
            m.put(r.key(), r.text());
        }
        return m;
    }

    /** Ours' region order, with regions only theirs has inserted after their predecessor there. */
    private static List<String> order(Map<String, String> o, Map<String, String> t) {
        List<String> keys = new ArrayList<>(o.keySet());
        String prev = null;
        for (String k : t.keySet()) {
            if (!keys.contains(k)) {
                int at = prev == null ? 0 : keys.indexOf(prev) + 1;
                keys.add(at, k);
            }
            prev = k;
        }
        return keys;
    }

    /** {@code _head}: merged with last_updated set aside, then the later value; null when the rest conflicts. */
    static String mergeHead(String b, String o, String t) {
        String ol = lastUpdated(o);
        String tl = lastUpdated(t);
        String bn = b == null ? null : neutral(b);
        String on = neutral(o);
        String tn = neutral(t);
        String merged;
        if (on.equals(tn) || tn.equals(bn)) {
            merged = on;
        } else if (on.equals(bn)) {
            merged = tn;
        } else {
            return null;
        }
        String later = ol == null ? tl : tl == null ? ol : ol.compareTo(tl) >= 0 ? ol : tl;
        return later == null ? merged : merged.replace(PLACEHOLDER, later);
    }

    private static String lastUpdated(String head) {
        Matcher m = LAST_UPDATED.matcher(head);
        return m.find() ? m.group(2) : null;
    }

    private static String neutral(String head) {
        return LAST_UPDATED.matcher(head).replaceFirst("$1" + Matcher.quoteReplacement(PLACEHOLDER) + "$3$4");
    }

    /**
     * The Change Log: ours' lines, minus base lines theirs removed, plus theirs' new lines; the
     * dated entries then sorted by date (stable). Lines other than entries (heading, anchor, blank
     * lines) are ours'.
     */
    static String mergeChangeLog(String b, String o, String t) {
        List<String> bl = lines(b == null ? "" : b);
        List<String> ol = lines(o);
        List<String> tl = lines(t);
        Set<String> baseSet = new LinkedHashSet<>(bl);
        Set<String> theirsSet = new LinkedHashSet<>(tl);
        Set<String> oursSet = new LinkedHashSet<>(ol);
        List<String> entries = new ArrayList<>();
        int first = -1;
        int last = -1;
        for (int i = 0; i < ol.size(); i++) {
            if (isEntry(ol.get(i))) {
                first = first < 0 ? i : first;
                last = i;
            }
        }
        if (first < 0) {
            return null; // no entry block to merge into: let the caller decide
        }
        for (int i = first; i <= last; i++) {
            String l = ol.get(i);
            if (!isEntry(l) || baseSet.contains(l) && !theirsSet.contains(l)) {
                continue;
            }
            entries.add(l);
        }
        for (String l : tl) {
            if (isEntry(l) && !baseSet.contains(l) && !oursSet.contains(l)) {
                entries.add(l);
            }
        }
        List<String> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparing(SectionMerge::dateOf));
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < first; i++) {
            out.append(ol.get(i));
        }
        sorted.forEach(out::append);
        for (int i = last + 1; i < ol.size(); i++) {
            out.append(ol.get(i));
        }
        return out.toString();
    }

    private static boolean isEntry(String line) {
        return line.startsWith("- ");
    }

    private static String dateOf(String line) {
        Matcher m = DATED.matcher(line);
        return m.find() ? m.group(1) : "";
    }

    /** Lines with their line ends kept, so the text reassembles byte for byte. */
    private static List<String> lines(String s) {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '\n') {
                out.add(s.substring(from, i + 1));
                from = i + 1;
            }
        }
        if (from < s.length()) {
            out.add(s.substring(from));
        }
        return out;
    }
}
