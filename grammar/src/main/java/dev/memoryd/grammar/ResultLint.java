package dev.memoryd.grammar;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A new write must not add lint problems to a file other than caps (caps are decided per op):
 * the findings of the result are compared with those of the text it started from. Findings are
 * cached, since the text a write starts from is usually the one the previous write produced and
 * linted. Thread-safe.
 */
final class ResultLint {
    /**
     * The last linted text of each recent file and its findings; bounded, thread-safe under its
     * lock. Sized for a few dozen files written in turn: a file's entry must outlive the writes to
     * the others until its next write (at 16, 16 writers' files missed). Keyed by path, not by
     * text: a key holding the text hashed the whole of every new result (a tenth of the writer's
     * time on a 200 KB file), where the text a write starts from is compared with the kept one,
     * usually the same instance.
     */
    private static final Map<LintKey, Linted> LINTED = new LinkedHashMap<>(128, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<LintKey, Linted> e) {
            return size() > 64;
        }
    };

    /** Grammar compares by identity: findings are only reused under the same grammar. */
    private record LintKey(Grammar grammar, RepoPath path) {}

    private record Linted(String text, List<String> findings) {}

    private ResultLint() {}

    /**
     * Refuses ({@code spec_violation}, naming {@code opIndex}) a result {@code result} of {@code p}
     * with a lint problem its original {@code orig} (null for a new file) did not have.
     */
    static void check(Grammar g, RepoPath p, String orig, MemoryDocument result, int opIndex) {
        Linter linter = new Linter();
        List<String> before = orig == null ? List.of() : lintKeys(g, linter, p, orig);
        List<String> remaining = new ArrayList<>(before);
        List<LintProblem> after = linter.lint(g, p, result);
        synchronized (LINTED) {
            LINTED.put(
                    new LintKey(g, p),
                    new Linted(
                            result.text(),
                            after.stream()
                                    .map(x -> x.rule() + ": " + x.message())
                                    .toList()));
        }
        for (LintProblem x : after) {
            if (x.rule().startsWith("cap-")) {
                continue;
            }
            if (!remaining.remove(x.rule() + ": " + x.message())) {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("op_index", opIndex);
                d.put("rule", x.rule());
                d.put("line", x.line());
                throw new OpRejected(
                        Reason.SPEC_VIOLATION,
                        p + ":" + x.line() + ": the result would violate " + x.rule() + ": " + x.message(),
                        d);
            }
        }
    }

    private static List<String> lintKeys(Grammar g, Linter linter, RepoPath p, String text) {
        LintKey key = new LintKey(g, p);
        synchronized (LINTED) {
            Linted hit = LINTED.get(key);
            if (hit != null && hit.text().equals(text)) {
                return hit.findings();
            }
        }
        List<String> keys = linter.lint(g, p, text).stream()
                .map(x -> x.rule() + ": " + x.message())
                .toList();
        synchronized (LINTED) {
            LINTED.put(key, new Linted(text, keys));
        }
        return keys;
    }
}
