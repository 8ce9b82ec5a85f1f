package dev.memoryd.daemon.console;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.eclipse.jgit.diff.DiffAlgorithm;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.EditList;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.diff.RawTextComparator;

/**
 * Unified diffs as HTML: each line escaped and marked as added, removed, hunk header or file
 * header. Diffs of two texts are computed with JGit's histogram diff (already the daemon's diff,
 * as {@code drift.show}'s is), so the console adds no diff library.
 */
final class DiffHtml {
    private DiffHtml() {}

    /** A unified diff's text as a marked-up block. */
    static String unified(String diff) {
        StringBuilder b = new StringBuilder("<pre class=\"diff\">");
        if (diff == null || diff.isEmpty()) {
            return b.append("<span>(no difference)</span></pre>").toString();
        }
        for (String line : diff.split("\n", -1)) {
            String cls = line.startsWith("+++") || line.startsWith("---")
                    ? "file"
                    : line.startsWith("@@")
                            ? "hunk"
                            : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : null;
            b.append(cls == null ? "<span>" : "<span class=\"" + cls + "\">")
                    .append(Html.text(line))
                    .append("</span>");
        }
        return b.append("</pre>").toString();
    }

    /** The unified diff (text) from {@code before} to {@code after}, headed by the two labels. */
    static String between(String before, String after, String beforeLabel, String afterLabel) {
        RawText a = new RawText(before.getBytes(StandardCharsets.UTF_8));
        RawText b = new RawText(after.getBytes(StandardCharsets.UTF_8));
        EditList edits = DiffAlgorithm.getAlgorithm(DiffAlgorithm.SupportedAlgorithm.HISTOGRAM)
                .diff(RawTextComparator.DEFAULT, a, b);
        if (edits.isEmpty()) {
            return "";
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DiffFormatter f = new DiffFormatter(out)) {
            f.format(edits, a, b);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return "--- " + beforeLabel + "\n+++ " + afterLabel + "\n" + out.toString(StandardCharsets.UTF_8);
    }
}
