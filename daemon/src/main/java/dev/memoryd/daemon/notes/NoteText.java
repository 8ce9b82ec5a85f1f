package dev.memoryd.daemon.notes;

import dev.memoryd.grammar.MarkdownBlocks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A note's markdown made fit to sit under the note's own H3 heading in a narrative section,
 * every word kept: YAML frontmatter (a first line {@code ---} down to a line {@code ---} or {@code
 * ...}) becomes a {@code yaml} code block, which a renderer would otherwise show as a rule and a
 * heading; an underlined (setext) heading becomes the ATX heading memory files are structured by,
 * its lines joined by a space; and every heading outside a code block moves down by as many levels
 * as puts the note's highest at H4. A note whose headings span more than H4 to H6 can hold is
 * refused, naming the lines as the note numbers them. Input has LF line ends. Pure.
 */
final class NoteText {
    /** The level of the heading each note is put under. */
    static final int NOTE_LEVEL = 3;

    /** An ATX heading line: up to three spaces, one to six {@code #}, then a blank or the line's end. */
    private static final Pattern HEADING = Pattern.compile("( {0,3})(#{1,6})([ \t].*)?");

    private NoteText() {}

    /** What became of a note's text. */
    sealed interface Result permits Fit, Unfit {}

    /** The text to append under the note's heading. */
    record Fit(String text) implements Result {}

    /** Why the note cannot be nested. */
    record Unfit(String why) implements Result {}

    static Result nest(String text) {
        List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
        List<Integer> origin = new ArrayList<>(lines.size()); // each line's number in the note as given
        for (int i = 1; i <= lines.size(); i++) {
            origin.add(i);
        }
        frontmatterAsCode(lines);
        setextAsAtx(lines, origin);
        String joined = String.join("\n", lines);
        BitSet fenced = MarkdownBlocks.fencedLines(joined);
        int highest = 7;
        int highestLine = -1;
        int lowest = 0;
        int lowestLine = -1;
        for (int i = 0; i < lines.size(); i++) {
            Matcher h = fenced.get(i) ? null : HEADING.matcher(lines.get(i));
            if (h != null && h.matches()) {
                int level = h.group(2).length();
                if (level < highest) {
                    highest = level;
                    highestLine = i;
                }
                if (level > lowest) {
                    lowest = level;
                    lowestLine = i;
                }
            }
        }
        int down = highestLine < 0 ? 0 : Math.max(0, NOTE_LEVEL + 1 - highest);
        if (lowest + down > 6) {
            return new Unfit("its headings run from H" + highest + " (line " + origin.get(highestLine) + ") to H"
                    + lowest + " (line " + origin.get(lowestLine)
                    + "): nested under the note's H3 heading they would go past H6;"
                    + " a note may use three levels of headings");
        }
        for (int i = 0; down > 0 && i < lines.size(); i++) {
            Matcher h = fenced.get(i) ? null : HEADING.matcher(lines.get(i));
            if (h != null && h.matches()) {
                lines.set(
                        i,
                        h.group(1)
                                + "#".repeat(down)
                                + lines.get(i).substring(h.group(1).length()));
            }
        }
        return new Fit(String.join("\n", lines));
    }

    /** Frontmatter's fences made a code block's, one backtick longer than any run at a line's start inside. */
    private static void frontmatterAsCode(List<String> lines) {
        if (lines.isEmpty() || !lines.get(0).stripTrailing().equals("---")) {
            return;
        }
        int close = -1;
        int ticks = 2;
        for (int i = 1; i < lines.size() && close < 0; i++) {
            String l = lines.get(i).stripTrailing();
            if (l.equals("---") || l.equals("...")) {
                close = i;
            } else {
                int run = 0;
                String lead = l.stripLeading();
                while (run < lead.length() && lead.charAt(run) == '`') {
                    run++;
                }
                ticks = Math.max(ticks, run);
            }
        }
        if (close < 0) {
            return; // not frontmatter: a rule, as a renderer shows it
        }
        String fence = "`".repeat(ticks + 1);
        lines.set(0, fence + "yaml");
        lines.set(close, fence);
    }

    /** Each top-level underlined heading made one ATX heading line of its level. */
    private static void setextAsAtx(List<String> lines, List<Integer> origin) {
        List<MarkdownBlocks.SetextHeading> found = MarkdownBlocks.setextHeadings(String.join("\n", lines));
        for (int k = found.size() - 1; k >= 0; k--) { // from the end: earlier line numbers stay valid
            MarkdownBlocks.SetextHeading h = found.get(k);
            StringBuilder title = new StringBuilder("#".repeat(h.level())).append(' ');
            for (int i = h.first(); i < h.underline(); i++) {
                title.append(i > h.first() ? " " : "").append(lines.get(i).strip());
            }
            lines.subList(h.first() + 1, h.underline() + 1).clear();
            origin.subList(h.first() + 1, h.underline() + 1).clear();
            lines.set(h.first(), title.toString());
        }
    }
}
