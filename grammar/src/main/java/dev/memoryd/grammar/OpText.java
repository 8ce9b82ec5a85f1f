package dev.memoryd.grammar;

/**
 * The texts ops carry, validated, and the body layout ops write: one blank line after the
 * anchor line, the content, and one blank line before the next heading (none at EOF); an empty
 * section has just the blank line. Pure; refusals are {@link OpRejected}.
 */
final class OpText {
    private OpText() {}

    /** Canonical content (no leading/trailing blank lines, ends in \n) after validation. */
    static String content(String raw, String field) {
        String c = MemoryDocument.canonicalize(raw);
        if (c.isEmpty()) {
            throw new OpRejected(Reason.INVALID_OP, field + " must not be empty");
        }
        String problem = Bodies.structureProblem(c);
        if (problem != null) {
            throw new OpRejected(Reason.PROHIBITED, field + ": " + problem);
        }
        return c;
    }

    /** A bullet's text: no blank lines, no structure, trimmed of surrounding blank lines. */
    static String item(String raw, String field) {
        String c = content(raw, field);
        c = c.substring(0, c.length() - 1);
        if (c.lines().anyMatch(String::isBlank)) {
            throw new OpRejected(Reason.INVALID_OP, field + " must not contain blank lines");
        }
        return c;
    }

    /** A one-line, non-empty text (reasons). */
    static String line(String raw, String field) {
        if (raw == null || raw.isBlank()) {
            throw new OpRejected(Reason.INVALID_OP, field + " is required");
        }
        String s = raw.strip();
        if (s.contains("\n") || s.contains("\r")) {
            throw new OpRejected(Reason.INVALID_OP, field + " must be one line");
        }
        if (Bodies.structureProblem(s) != null) {
            throw new OpRejected(Reason.PROHIBITED, field + ": " + Bodies.structureProblem(s));
        }
        return s;
    }

    static void evidence(String item, String field) {
        String p = Bodies.evidenceProblem(item);
        if (p != null) {
            throw new OpRejected(Reason.INVALID_OP, field + ": " + p);
        }
    }

    /** Body layout: blank line, canonical content, blank line before the next heading. */
    static String layout(String canonical, boolean last) {
        if (canonical.isEmpty()) {
            return last ? "" : "\n";
        }
        return "\n" + canonical + (last ? "" : "\n");
    }

    /** Inserts a bullet after the last bullet, keeping the rest of the body as it is. */
    static String appendBullet(String body, String canonical, String item, boolean last) {
        int at = Bodies.lastBulletEnd(body);
        if (at < 0) {
            return layout(canonical.isEmpty() ? Bodies.bullet(item) : canonical + "\n" + Bodies.bullet(item), last);
        }
        String sep = at > 0 && body.charAt(at - 1) != '\n' ? "\n" : "";
        return body.substring(0, at) + sep + Bodies.bullet(item) + body.substring(at);
    }
}
