package dev.memoryd.grammar;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code curate_items}: removes items of a list section and merges groups of them into one,
 * keeping every other byte of the body; the reason goes to the Change Log as a line of its own.
 */
final class CurateItemsApplier {
    private CurateItemsApplier() {}

    static SectionEdit apply(CurateItems c, SectionEdit.Target t) {
        String newBody = curate(c, t.def(), t.body(), t.last());
        return new SectionEdit(
                newBody,
                "curated " + t.label(),
                List.of(t.date() + ": curated " + t.label() + ": " + OpText.line(c.reason(), "reason")));
    }

    private static String curate(CurateItems c, SectionDef def, String body, boolean last) {
        OpText.line(c.reason(), "reason");
        if (c.remove().isEmpty() && c.merge().isEmpty()) {
            throw new OpRejected(Reason.INVALID_OP, "curate_items needs items to remove or merge");
        }
        List<Bodies.Bullet> bullets = Bodies.bullets(body, 1);
        // claim[i]: -1 keep, -2 remove, g >= 0 merged into group g.
        int[] claim = new int[bullets.size()];
        Arrays.fill(claim, -1);
        for (String r : c.remove()) {
            claim[find(bullets, claim, r, def)] = -2;
        }
        for (int gi = 0; gi < c.merge().size(); gi++) {
            CurateItems.Merge m = c.merge().get(gi);
            if (m.items().size() < 2) {
                throw new OpRejected(Reason.INVALID_OP, "merge[" + gi + "].items needs at least two items");
            }
            String into = OpText.item(m.into(), "merge[" + gi + "].into");
            if (def.evidence()) {
                OpText.evidence(into, "merge[" + gi + "].into");
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
                out.append(Bodies.bullet(
                        MemoryDocument.canonicalize(c.merge().get(claim[i]).into())
                                .strip()));
            }
            cursor = b.end();
        }
        out.append(body.substring(cursor));
        String result = out.toString();
        String canon = MemoryDocument.canonicalize(result);
        // Keep the one-blank-line layout when curation empties the list or leaves stray blank lines.
        return canon.isEmpty() || !result.equals(OpText.layout(canon, last)) && result.contains("\n\n\n")
                ? OpText.layout(canon, last)
                : result;
    }

    private static int find(List<Bodies.Bullet> bullets, int[] claim, String text, SectionDef def) {
        for (int i = 0; i < bullets.size(); i++) {
            if (claim[i] == -1 && bullets.get(i).text().equals(text)) {
                return i;
            }
        }
        boolean exists = bullets.stream().anyMatch(b -> b.text().equals(text));
        if (exists) {
            throw new OpRejected(Reason.INVALID_OP, "item '" + text + "' is named twice in this curation");
        }
        throw new OpRejected(Reason.NOT_FOUND, "no item '" + text + "' in section '" + def.name() + "'");
    }
}
