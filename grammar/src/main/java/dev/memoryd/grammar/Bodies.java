package dev.memoryd.grammar;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Helpers over section bodies shared by the linter and the op applier: bullets, word
 * counts, evidence tokens and structure-forging content checks.
 *
 * <p>Contract: a list item is a line starting {@code "- "} at column 0; following lines
 * indented by two spaces are its continuation. An item's text is its lines without the
 * {@code "- "} / two-space prefixes, joined with {@code \n}.
 */
final class Bodies {

    private Bodies() {}

    /** A bullet with its span relative to the body it was found in. */
    record Bullet(String text, int start, int end, int line) {}

    /** ev:YYYYMMDDThhmmssZ-ULID (Crockford base32, 26 chars, first char 0–7). */
    static final Pattern EV_TOKEN = Pattern.compile("ev:(\\d{8}T\\d{6}Z)-([0-7][0-9A-HJKMNP-TV-Z]{25})(?![0-9A-Za-z])");

    private static final Pattern EV_ANY = Pattern.compile("ev:\\S*");
    private static final Pattern QUOTE =
            Pattern.compile("\"[^\"\\n]*\\S[^\"\\n]*\"|\u201c[^\u201d\\n]*\\S[^\u201d\\n]*\u201d");
    private static final DateTimeFormatter EV_TIME =
            DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'").withResolverStyle(ResolverStyle.STRICT);
    private static final Pattern H1_H2 = Pattern.compile("^ {0,3}#{1,2}(?:[ \\t].*)?$");

    /**
     * Parses the bullets of a body; {@code lineBase} is the 1-based line of the body's first line.
     * An item of one line is cut from the body in one copy: a list section of thousands of items
     * is parsed on every write to it, by the op and by lint.
     */
    static List<Bullet> bullets(String body, int lineBase) {
        List<Bullet> out = new ArrayList<>(Math.max(10, body.length() / 48)); // about an item a short line
        int pos = 0;
        int line = lineBase;
        int openStart = -1; // the open item's start, -1: none
        int openLine = 0;
        int textFrom = 0; // its first line's text
        int textTo = 0;
        StringBuilder more = null; // its text once it has continuation lines
        while (pos < body.length()) {
            int e = body.indexOf('\n', pos);
            int lineEnd = e < 0 ? body.length() : e + 1;
            int textEnd = textEnd(body, pos, lineEnd);
            int len = textEnd - pos;
            if (startsItem(body, pos, textEnd)) {
                if (openStart >= 0) {
                    out.add(new Bullet(itemText(body, textFrom, textTo, more), openStart, pos, openLine));
                }
                openStart = pos;
                openLine = line;
                textFrom = Math.min(pos + 2, textEnd);
                textTo = textEnd;
                more = null;
            } else if (openStart >= 0
                    && len >= 2
                    && body.charAt(pos) == ' '
                    && body.charAt(pos + 1) == ' '
                    && !SectionText.blank(body, pos + 2, textEnd)) {
                if (more == null) {
                    more = new StringBuilder().append(body, textFrom, textTo);
                }
                more.append('\n').append(body, pos + 2, textEnd);
            } else if (openStart >= 0) {
                out.add(new Bullet(itemText(body, textFrom, textTo, more), openStart, pos, openLine));
                openStart = -1;
            }
            pos = lineEnd;
            line++;
        }
        if (openStart >= 0) {
            out.add(new Bullet(itemText(body, textFrom, textTo, more), openStart, body.length(), openLine));
        }
        return out;
    }

    /**
     * Where the body's last bullet ends, as {@link #bullets} says, or -1 when it has none; found
     * from the end (no line of an item's continuation starts an item), so an append to a long list
     * does not parse every item before it.
     */
    static int lastBulletEnd(String body) {
        int lineStart = body.length();
        while (lineStart > 0) {
            int from = body.lastIndexOf('\n', lineStart - 2) + 1; // the line before lineStart
            int e = body.indexOf('\n', from);
            if (startsItem(body, from, textEnd(body, from, e < 0 ? body.length() : e + 1))) {
                List<Bullet> last = bullets(body.substring(from), 1);
                return from + last.get(0).end();
            }
            lineStart = from;
        }
        return -1;
    }

    /** Where the text of the line {@code [pos, lineEnd)} ends: before its {@code \n}, and a {@code \r} before that. */
    private static int textEnd(String body, int pos, int lineEnd) {
        int textEnd = lineEnd;
        if (textEnd > pos && body.charAt(textEnd - 1) == '\n') {
            textEnd--;
            if (textEnd > pos && body.charAt(textEnd - 1) == '\r') {
                textEnd--;
            }
        }
        return textEnd;
    }

    /** Whether the line whose text is {@code [pos, textEnd)} starts an item: {@code "- "}, or {@code "-"} alone. */
    private static boolean startsItem(String body, int pos, int textEnd) {
        int len = textEnd - pos;
        return len > 0 && body.charAt(pos) == '-' && (len == 1 || body.charAt(pos + 1) == ' ');
    }

    private static String itemText(String body, int from, int to, StringBuilder more) {
        return more != null ? more.toString() : body.substring(from, to);
    }

    /** Formats an item as bullet lines (continuation lines indented by two spaces), ending in \n. */
    static String bullet(String item) {
        return "- " + item.replace("\n", "\n  ") + "\n";
    }

    /**
     * Whitespace-separated words, not counting H3 heading lines. The count is per line, so a body
     * that extends one counted lately by whole lines (a section appended to, the usual write) is
     * counted from the lines it adds: the count of a large section no longer grows with the section.
     */
    static int words(String body) {
        String base = null;
        int baseWords = 0;
        synchronized (WORDS_MEMO) {
            // The longest body counted lately that this one extends by whole lines: tried longest
            // first, so that usually one comparison finds it.
            boolean[] tried = new boolean[WORDS_MEMO.length];
            while (true) {
                int best = -1;
                for (int i = 0; i < WORDS_MEMO.length; i++) {
                    String m = WORDS_MEMO[i];
                    if (m == null || tried[i]) {
                        continue;
                    }
                    if (m.length() == body.length() && m.equals(body)) {
                        return WORDS_COUNT[i];
                    }
                    if (m.length() < body.length()
                            && !m.isEmpty()
                            && m.charAt(m.length() - 1) == '\n'
                            && (best < 0 || m.length() > WORDS_MEMO[best].length())) {
                        best = i;
                    }
                }
                if (best < 0) {
                    break;
                }
                tried[best] = true;
                if (Regions.startsWith(body, WORDS_MEMO[best])) {
                    base = WORDS_MEMO[best];
                    baseWords = WORDS_COUNT[best];
                    break;
                }
            }
        }
        int n = base == null ? countWords(body, 0) : baseWords + countWords(body, base.length());
        synchronized (WORDS_MEMO) {
            WORDS_MEMO[wordsNext] = body;
            WORDS_COUNT[wordsNext] = n;
            wordsNext = (wordsNext + 1) % WORDS_MEMO.length;
        }
        return n;
    }

    /** Bodies counted lately and their counts (a ring): the next count of a grown body starts from them. */
    private static final String[] WORDS_MEMO = new String[8];

    private static final int[] WORDS_COUNT = new int[WORDS_MEMO.length];

    private static int wordsNext;

    /** Words of the lines of {@code body} from {@code from} (a line start) on. */
    static int countWords(String body, int from) {
        // A scan rather than split(): every write to a capped section counts its words, and
        // regex splitting of a large notes section was most of a bulk import's CPU. Same count
        // as trimming each line and splitting it on \s+.
        int n = 0;
        int len = body.length();
        for (int start = from; start <= len; ) {
            int end = body.indexOf('\n', start);
            if (end < 0) {
                end = len;
            }
            if (!body.startsWith("### ", start)) {
                int a = start;
                int b = end;
                while (a < b && body.charAt(a) <= ' ') {
                    a++;
                }
                while (b > a && body.charAt(b - 1) <= ' ') {
                    b--;
                }
                boolean inWord = false;
                for (int i = a; i < b; i++) {
                    boolean space = isRegexSpace(body.charAt(i));
                    if (!space && !inWord) {
                        n++;
                    }
                    inWord = !space;
                }
            }
            start = end + 1;
        }
        return n;
    }

    /** {@code \s} of java.util.regex without UNICODE_CHARACTER_CLASS. */
    private static boolean isRegexSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    /** Why an evidence item is not valid, or null if it has a quote and only valid ev: tokens. */
    static String evidenceProblem(String item) {
        if (!QUOTE.matcher(item).find()) {
            return "evidence item needs a short quote in double quotes";
        }
        Matcher any = EV_ANY.matcher(item);
        int valid = 0;
        while (any.find()) {
            String tok = any.group().replaceAll("[).,;:]+$", "");
            Matcher m = EV_TOKEN.matcher(tok);
            if (!m.matches() || !validTime(m.group(1))) {
                return "malformed evidence token '" + tok + "'; expected ev:YYYYMMDDThhmmssZ-<26-char ULID>";
            }
            valid++;
        }
        return valid == 0 ? "evidence item needs an ev:YYYYMMDDThhmmssZ-<ULID> token" : null;
    }

    private static boolean validTime(String s) {
        try {
            LocalDateTime.parse(s, EV_TIME);
            return true;
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    /**
     * Why content would forge or remove file structure (an H1/H2 heading line outside a closed
     * code fence, an anchor comment, a frontmatter fence at the start), or null if it is safe.
     */
    static String structureProblem(String content) {
        String text = content.replace("\r\n", "\n");
        String[] lines = text.split("\n", -1);
        java.util.BitSet fenced = MarkdownBlocks.fencedLines(text);
        int firstNonBlank = -1;
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            if (firstNonBlank < 0 && !l.isBlank()) {
                firstNonBlank = i;
            }
            if (!fenced.get(i) && H1_H2.matcher(l).matches()) {
                return "content line " + (i + 1) + " is an H1/H2 heading, which would forge or split a section";
            }
            if (l.contains("@anchor:") || AnchorLine.anchorOf(l) != null) {
                return "content line " + (i + 1) + " contains an anchor comment";
            }
        }
        if (firstNonBlank >= 0 && lines[firstNonBlank].strip().equals("---")) {
            return "content starts with a '---' frontmatter fence";
        }
        return null;
    }
}
