package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BodiesBulletsTest {
    /** The rule on the body split into its lines, each with copies: what the parser must give. */
    private static List<Bodies.Bullet> byTheRule(String body, int lineBase) {
        List<Bodies.Bullet> out = new ArrayList<>();
        int pos = 0;
        int line = lineBase;
        Bodies.Bullet open = null;
        StringBuilder openText = null;
        for (String raw : body.split("(?<=\n)")) {
            if (raw.isEmpty()) {
                continue; // the split of an empty body
            }
            String l = raw.endsWith("\r\n")
                    ? raw.substring(0, raw.length() - 2)
                    : raw.endsWith("\n") ? raw.substring(0, raw.length() - 1) : raw;
            if (l.startsWith("- ") || l.equals("-")) {
                if (open != null) {
                    out.add(new Bodies.Bullet(openText.toString(), open.start(), pos, open.line()));
                }
                open = new Bodies.Bullet(null, pos, -1, line);
                openText = new StringBuilder(l.length() > 2 ? l.substring(2) : "");
            } else if (open != null && l.startsWith("  ") && !l.isBlank()) {
                openText.append('\n').append(l.substring(2));
            } else if (open != null) {
                out.add(new Bodies.Bullet(openText.toString(), open.start(), pos, open.line()));
                open = null;
            }
            pos += raw.length();
            line++;
        }
        if (open != null) {
            out.add(new Bodies.Bullet(openText.toString(), open.start(), body.length(), open.line()));
        }
        return out;
    }

    @Test
    void bullets_areWhatTheLineByLineRuleGives_onRandomBodies() {
        String[] pieces = {"- ", "-", "  ", " ", "\t", "\u2003", "\u00a0", "a", "é", "\n", "\r\n", "\r", "-x", "--", "#"
        };
        Random r = new Random(20261129);
        for (int i = 0; i < 30_000; i++) {
            StringBuilder b = new StringBuilder();
            int n = r.nextInt(30);
            for (int k = 0; k < n; k++) {
                b.append(pieces[r.nextInt(pieces.length)]);
            }
            String body = b.toString();
            List<Bodies.Bullet> rule = byTheRule(body, 7);
            assertEquals(
                    rule,
                    Bodies.bullets(body, 7),
                    () -> body.replace("\n", "\\n").replace("\r", "\\r"));
            assertEquals(
                    rule.isEmpty() ? -1 : rule.get(rule.size() - 1).end(),
                    Bodies.lastBulletEnd(body),
                    () -> "last end of " + body.replace("\n", "\\n").replace("\r", "\\r"));
        }
    }
}
