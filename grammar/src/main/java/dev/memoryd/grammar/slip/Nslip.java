package dev.memoryd.grammar.slip;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * nSLIP, the compact one-line wire form of a {@link SlipMessage} (slip-v0.1 §3):
 * {@code @a<act>|f<frame>|c<conv>|S<src>|d<dst>|T<turn>|<prefix><value>|...#}.
 *
 * <p>Encoding (canonical, as docs/DESIGN.md fixes): the header in the order
 * {@code a f c S d T}, then the slots in code order ({@link Slot#code()}), each as its
 * {@link Slot#prefix()} and value; act and frame are their codes, every integer is
 * canonical {@link Base62}; STATUS and TAG are written {@code "…"} escaping exactly
 * {@code \} as {@code \\} and {@code "} as {@code \"} (the spec's minimal escaping; no
 * other char is escaped, and {@link SlipMessage} admits no control character, so the
 * output is a single line). Example from the spec:
 * {@code @a3|f0|c3|S0|d1|T1|gH|kg|q2|t"refactor_auth"#}.
 *
 * <p>Decoding is strict and never throws for a non-null input: the header must come
 * first and in the order {@code a f c S d T}; slots may follow in any order, each at
 * most once; integers must be canonical base62 (no leading zero) within
 * {@code Long.MAX_VALUE}; nothing may follow {@code #}. The first problem found, scanning
 * left to right, is returned as a {@link SlipParse.Error} with its char offset and one
 * of the reasons of {@link SlipParse#REASONS}. Hence {@code decode(encode(m))} is
 * {@code Ok(m)} for every message, and {@code encode} of a decoded message is the
 * canonical form of the input (the input itself if it was canonical).
 */
public final class Nslip {

    /** Header prefixes, in wire order. */
    static final String HEADER = "afcSdT";

    private static final String[] HEADER_NAMES = {"act", "frame", "conv_id", "src", "dst", "turn"};

    private Nslip() {}

    /** The canonical nSLIP form of {@code m}. */
    public static String encode(SlipMessage m) {
        StringBuilder b = new StringBuilder(32 + 8 * m.slots().size());
        b.append("@a")
                .append(Base62.encode(m.act().code()))
                .append("|f")
                .append(Base62.encode(m.frame().code()))
                .append("|c")
                .append(Base62.encode(m.convId()))
                .append("|S")
                .append(Base62.encode(m.src()))
                .append("|d")
                .append(Base62.encode(m.dst()))
                .append("|T")
                .append(Base62.encode(m.turn()));
        for (Map.Entry<Slot, Object> e : m.slots().entrySet()) {
            b.append('|').append(e.getKey().prefix());
            if (e.getKey().isString()) {
                quote(b, (String) e.getValue());
            } else {
                b.append(Base62.encode((Long) e.getValue()));
            }
        }
        return b.append('#').toString();
    }

    private static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' || c == '"') {
                b.append('\\');
            }
            b.append(c);
        }
        b.append('"');
    }

    /**
     * Decodes one nSLIP message; the whole input must be the message.
     *
     * @throws NullPointerException if {@code input} is null
     */
    public static SlipParse decode(String input) {
        Objects.requireNonNull(input, "input");
        try {
            return new SlipParse.Ok(new Parser(input).message());
        } catch (Fail f) {
            return new SlipParse.Error(f.position, f.reason, f.getMessage());
        }
    }

    /** Unwinds the parser on the first problem; stackless. */
    private static final class Fail extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int position;
        final String reason;

        Fail(int position, String reason, String message) {
            super(message + " (at position " + position + ")", null, false, false);
            this.position = position;
            this.reason = reason;
        }
    }

    private static final class Parser {
        private final String s;
        private final int len;
        private int i;

        Parser(String s) {
            this.s = s;
            this.len = s.length();
        }

        SlipMessage message() {
            if (len == 0) {
                throw new Fail(0, "missing_at", "empty input; a message starts with '@'");
            }
            if (s.charAt(0) != '@') {
                throw new Fail(0, "missing_at", "a message starts with '@', found " + shown(0));
            }
            i = 1;
            long[] header = new long[HEADER.length()];
            Act act = null;
            FrameType frame = null;
            for (int h = 0; h < header.length; h++) {
                if (h > 0) {
                    // The previous value stopped at '|' or '#'.
                    if (s.charAt(i) == '#') {
                        throw new Fail(
                                i,
                                "missing_field",
                                "header field '" + HEADER.charAt(h) + "' (" + HEADER_NAMES[h]
                                        + ") is missing before '#'");
                    }
                    i++;
                }
                if (i >= len) {
                    throw missingHash();
                }
                if (s.charAt(i) != HEADER.charAt(h)) {
                    throw new Fail(
                            i,
                            "missing_field",
                            "expected header field '" + HEADER.charAt(h) + "' (" + HEADER_NAMES[h] + "), found "
                                    + shown(i) + "; the header is a, f, c, S, d, T in that order");
                }
                i++;
                int start = i;
                header[h] = integer();
                if (h == 0) {
                    act = Act.byCode(header[0])
                            .orElseThrow(() -> new Fail(
                                    start,
                                    "unknown_act",
                                    "act code " + header[0] + " is not one of 0.." + (Act.values().length - 1)));
                } else if (h == 1) {
                    frame = FrameType.byCode(header[1])
                            .orElseThrow(() -> new Fail(
                                    start,
                                    "unknown_frame",
                                    "frame code " + header[1] + " is not one of 0.."
                                            + (FrameType.values().length - 1)));
                }
            }
            Map<Slot, Object> slots = new EnumMap<>(Slot.class);
            while (s.charAt(i) == '|') {
                i++;
                if (i >= len) {
                    throw missingHash();
                }
                char c = s.charAt(i);
                if (c == '|' || c == '#') {
                    throw new Fail(i, "empty_field", "empty field: '|' is followed by '" + c + "'");
                }
                Slot slot = Slot.byPrefix(c).orElse(null);
                if (slot == null) {
                    if (HEADER.indexOf(c) >= 0) {
                        throw new Fail(
                                i,
                                "duplicate_field",
                                "header field '" + c + "' (" + HEADER_NAMES[HEADER.indexOf(c)]
                                        + ") appears again after the header");
                    }
                    throw new Fail(i, "unknown_prefix", "unknown slot prefix " + shown(i));
                }
                if (slots.containsKey(slot)) {
                    throw new Fail(i, "duplicate_slot", "slot " + slot + " ('" + c + "') appears twice");
                }
                i++;
                slots.put(slot, slot.isString() ? string(slot) : (Object) integer());
            }
            // s.charAt(i) == '#'
            i++;
            if (i < len) {
                throw new Fail(i, "trailing_input", "input continues after the closing '#' with " + shown(i));
            }
            return SlipMessage.of(header[2], header[5], header[3], header[4], act, frame, slots);
        }

        /** Reads a base62 integer up to the next '|' or '#', leaving {@code i} there. */
        private long integer() {
            int start = i;
            while (i < len && s.charAt(i) != '|' && s.charAt(i) != '#') {
                i++;
            }
            if (i == start && i >= len) {
                throw missingHash();
            }
            long v;
            try {
                v = Base62.decode(s, start, i);
            } catch (Base62.Malformed m) {
                throw new Fail(m.index, m.overflow ? "overflow" : "bad_base62", m.getMessage());
            }
            if (i >= len) {
                throw missingHash();
            }
            return v;
        }

        /** Reads a quoted string, leaving {@code i} at the following '|' or '#'. */
        private String string(Slot slot) {
            if (i >= len) {
                throw missingHash();
            }
            if (s.charAt(i) != '"') {
                throw new Fail(
                        i,
                        "expected_string",
                        "slot " + slot + " holds a string, which starts with '\"', found " + shown(i));
            }
            int open = i++;
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= len) {
                    throw unterminated(open);
                }
                char c = s.charAt(i);
                if (c == '"') {
                    i++;
                    break;
                }
                if (c == '\\') {
                    if (i + 1 >= len) {
                        throw unterminated(open);
                    }
                    char n = s.charAt(i + 1);
                    if (n != '\\' && n != '"') {
                        throw new Fail(i, "bad_escape", "'\\' must be followed by '\\' or '\"', found " + shown(i + 1));
                    }
                    b.append(n);
                    i += 2;
                    continue;
                }
                if (Character.isISOControl(c)
                        || Character.isLowSurrogate(c)
                        || Character.isHighSurrogate(c)
                                && (i + 1 >= len || !Character.isLowSurrogate(s.charAt(i + 1)))) {
                    throw new Fail(i, "bad_char", "a string may not hold " + SlipMessage.describeBadChar(s, i));
                }
                if (Character.isHighSurrogate(c)) {
                    b.append(c);
                    i++;
                    c = s.charAt(i);
                }
                b.append(c);
                i++;
            }
            if (i >= len) {
                throw missingHash();
            }
            if (s.charAt(i) != '|' && s.charAt(i) != '#') {
                throw new Fail(i, "expected_separator", "expected '|' or '#' after the string, found " + shown(i));
            }
            return b.toString();
        }

        private Fail missingHash() {
            return new Fail(len, "missing_hash", "input ends without the closing '#'");
        }

        private Fail unterminated(int open) {
            return new Fail(
                    open, "unterminated_string", "the string opened here is not closed before the end of input");
        }

        private String shown(int at) {
            return "'" + Base62.printable(s.charAt(at)) + "'";
        }
    }
}
