package dev.memoryd.daemon.console;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Escaping for the console's HTML. Every text that reaches a page goes through {@link #text} (or
 * {@link #attr} inside an attribute, {@link #url} inside a query): memory content, rationales and
 * actors are written by agents and are untrusted, so none of it can open a tag or an attribute.
 */
final class Html {
    private static final Pattern TOKEN = Pattern.compile("ev:\\d{8}T\\d{6}Z-[0-9A-HJKMNP-TV-Z]{26}");

    private Html() {}

    /** {@code s} as HTML text: {@code & < > " '} become entities; null becomes the empty string. */
    static String text(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** {@code s} inside a double-quoted attribute value (the same escaping as text). */
    static String attr(String s) {
        return text(s);
    }

    /** {@code s} as one query-string value. */
    static String url(String s) {
        return URLEncoder.encode(s == null ? "" : s, StandardCharsets.UTF_8);
    }

    /** A link to {@code href} (already built from {@link #url} parts) with {@code label} as text. */
    static String link(String href, String label) {
        return "<a href=\"" + attr(href) + "\">" + text(label) + "</a>";
    }

    /**
     * {@code s} escaped, with each evidence token ({@code ev:<ts>-<ulid>}) made a link to its event
     * page. Tokens are matched on the escaped text: escaping leaves their characters alone.
     */
    static String textWithTokens(String s) {
        Matcher m = TOKEN.matcher(text(s));
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, Matcher.quoteReplacement(link("/event?token=" + url(m.group()), m.group())));
        }
        m.appendTail(b);
        return b.toString();
    }
}
