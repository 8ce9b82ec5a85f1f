package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SectionContentLintTest {
    private static final String EVIDENCE = "<!-- @anchor: evidence v1 -->\n\n";
    private static final String NEEDS = "<!-- @anchor: needs v1 -->\n\n";

    private final Linter linter = new Linter();
    private final Grammar g = TestSupport.grammar();

    @Test
    void findingsOfLargeSections_keptFromAnEarlierText_areThoseAFreshLintFinds() {
        Random rnd = new Random(20261126);
        String t = TestSupport.exampleTree().get(TestSupport.CRITIC);
        t = insertAfter(t, EVIDENCE, bullets(rnd, 70, true));
        t = insertAfter(t, NEEDS, bullets(rnd, 60, false));
        int reused = 0;
        for (int step = 0; step < 400; step++) {
            t = mutate(rnd, t, step);
            List<LintProblem> kept = linter.lint(g, TestSupport.CRITIC, t);
            SectionContentLint.forget();
            List<LintProblem> fresh = linter.lint(g, TestSupport.CRITIC, t);
            String at = "step " + step + ":\n" + t;
            assertEquals(fresh, kept, at);
            if (kept.stream().anyMatch(x -> x.rule().equals("evidence-token"))) {
                reused++;
            }
        }
        // the text kept a large section with findings in most steps, so the kept findings were used
        assertTrue(reused > 200, "steps with evidence findings: " + reused);
    }

    @Test
    void aBodyOfTheSameLengthWithOtherCharacters_isLintedAgain() {
        String t = TestSupport.exampleTree().get(TestSupport.CRITIC);
        t = insertAfter(t, EVIDENCE, bullets(new Random(1), 70, false));
        List<LintProblem> before = linter.lint(g, TestSupport.CRITIC, t);
        // one character of a token changed for another: same length, now malformed
        int at = t.indexOf("(ev:2026") + "(ev:2026".length();
        String changed = t.substring(0, at) + "x" + t.substring(at + 1);
        List<LintProblem> after = linter.lint(g, TestSupport.CRITIC, changed);
        assertEquals(before.size() + 1, after.size(), after::toString);
        assertTrue(after.stream().anyMatch(x -> x.rule().equals("evidence-token")), after::toString);
    }

    private static String bullets(Random rnd, int n, boolean someMalformed) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(bullet(rnd, i, someMalformed && rnd.nextInt(5) == 0));
        }
        return b.toString();
    }

    private static String bullet(Random rnd, int i, boolean malformed) {
        String token = String.format("ev:20261101T1000%02dZ-01JC7Y%020d", i % 60, rnd.nextInt(1_000_000));
        return malformed
                ? "- a paraphrase without its quote " + i + " (" + token + ")\n"
                : "- \"a quote of the person, number " + i + "\" (" + token + ")\n";
    }

    private static String insertAfter(String t, String marker, String text) {
        int at = t.indexOf(marker);
        assertTrue(at >= 0, marker);
        at += marker.length();
        return t.substring(0, at) + text + t.substring(at);
    }

    /** One random change: before the large sections, in them, of their anchors, or none. */
    private static String mutate(Random rnd, String t, int step) {
        switch (rnd.nextInt(7)) {
            case 0 -> {
                return insertAfter(t, "<!-- @anchor: triggers v1 -->\n\n", "- a trigger " + step + "\n");
            }
            case 1 -> {
                int at = t.indexOf("- a trigger ");
                return at < 0 ? t : t.substring(0, at) + t.substring(t.indexOf('\n', at) + 1);
            }
            case 2 -> {
                List<Integer> starts = new ArrayList<>();
                int from = t.indexOf("## Evidence (curated)\n");
                int end = t.indexOf("\n## ", from);
                for (int i = t.indexOf("\n- ", from); i >= 0 && i < end; i = t.indexOf("\n- ", i + 1)) {
                    starts.add(i + 1);
                }
                int s = starts.get(rnd.nextInt(starts.size()));
                int e = t.indexOf('\n', s) + 1;
                return t.substring(0, s) + bullet(rnd, step, rnd.nextBoolean()) + t.substring(e);
            }
            case 3 -> {
                int at = t.indexOf("\n- ", t.indexOf("## Evidence (curated)\n")) + 1;
                return t.substring(0, at) + bullet(rnd, step, rnd.nextInt(4) == 0) + t.substring(at);
            }
            case 4 -> {
                return t.contains(EVIDENCE)
                        ? t.replace(EVIDENCE, "\n")
                        : t.replace("## Evidence (curated)\n\n", "## Evidence (curated)\n" + EVIDENCE);
            }
            case 5 -> {
                return insertAfter(t, NEEDS, "- a need " + step + "\n");
            }
            default -> {
                return t;
            }
        }
    }
}
