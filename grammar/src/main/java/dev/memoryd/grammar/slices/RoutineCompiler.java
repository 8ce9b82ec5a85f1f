package dev.memoryd.grammar.slices;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Compiles a routine slice (Slices v1, body type {@code routine}) into executable markdown: one
 * section per step, in order. Steps are the JSONL body's objects:
 * <ul>
 * <li>{@code {"type":"instruction","text":"..."}}: the text, as written;</li>
 * <li>{@code {"type":"read","target":"<slice id or path>"}}: the target's body inlined (a
 *     routine target compiled in its place, its headings one level down);</li>
 * <li>{@code {"type":"run","command":"...","args":[...]}}: the command line in a {@code sh}
 *     block ({@code args} an array of strings, each quoted when it needs it).</li>
 * </ul>
 * Any step may carry {@code note} (a string) and {@code requirements} (an array of strings),
 * rendered as callouts; a row's {@code _meta} envelope is ignored.
 *
 * <p>Deterministic: the same slices give the same bytes. Reads nest at most {@code maxDepth}
 * routines deep and never through a routine already being compiled (a cycle). Pure: the only
 * input is what {@link Targets} returns. Thread-safe.
 */
public final class RoutineCompiler {
    /** Step types the spec names. */
    public static final List<String> STEP_TYPES = List.of("instruction", "read", "run");

    /** How deep reads of routines nest by default. */
    public static final int DEFAULT_DEPTH = 4;

    private static final Pattern PLAIN_ARG = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    /** Where a {@code read} step's target comes from: the text of the slice or file it names. */
    @FunctionalInterface
    public interface Targets {
        Optional<String> text(String idOrPath);
    }

    /** What compiling gives. */
    public sealed interface Result permits Compiled, Refused {}

    /** The routine as markdown. */
    public record Compiled(String markdown) implements Result {
        public Compiled {
            Objects.requireNonNull(markdown, "markdown");
        }
    }

    /**
     * Why the routine cannot be compiled: {@code rule} is one of {@code not_routine},
     * {@code bad_step}, {@code unknown_step}, {@code missing_target}, {@code cycle},
     * {@code too_deep}; {@code routine} and {@code line} say where (line 0: the slice itself).
     */
    public record Refused(String rule, String routine, int line, String message) implements Result {}

    private final Targets targets;
    private final int maxDepth;

    public RoutineCompiler(Targets targets, int maxDepth) {
        if (maxDepth < 1) {
            throw new IllegalArgumentException("maxDepth must be at least 1, not " + maxDepth);
        }
        this.targets = Objects.requireNonNull(targets, "targets");
        this.maxDepth = maxDepth;
    }

    /** Compiles the routine {@code idOrPath} names. */
    public Result compile(String idOrPath) {
        Optional<String> text = targets.text(idOrPath);
        if (text.isEmpty()) {
            return new Refused("missing_target", idOrPath, 0, "no slice or memory file " + idOrPath);
        }
        StringBuilder out = new StringBuilder();
        try {
            routine(idOrPath, SliceFile.parse(text.get()), 1, new ArrayDeque<>(), out);
        } catch (Stop s) {
            return s.refused;
        }
        return new Compiled(out.toString());
    }

    private static final class Stop extends Exception {
        private static final long serialVersionUID = 1L;
        final transient Refused refused;

        Stop(Refused refused) {
            super(refused.message(), null, false, false);
            this.refused = refused;
        }
    }

    private void routine(String name, SliceFile file, int level, Deque<String> open, StringBuilder out) throws Stop {
        JsonNode slice = file.slice().orElse(null);
        if (slice == null || !"routine".equals(slice.path("body").path("type").asText())) {
            throw new Stop(
                    new Refused("not_routine", name, 0, name + " is not a routine slice (slice.body.type: routine)"));
        }
        if (open.contains(name)) {
            throw new Stop(new Refused(
                    "cycle", name, 0, "routine " + name + " reads itself through " + String.join(" -> ", open)));
        }
        if (open.size() >= maxDepth) {
            throw new Stop(
                    new Refused("too_deep", name, 0, "routines nest more than " + maxDepth + " deep at " + name));
        }
        open.addLast(name);
        String title = slice.path("title").asText(name);
        out.append("#".repeat(level)).append(' ').append(title).append("\n\n");
        String summary = slice.path("summary").asText("");
        if (!summary.isBlank()) {
            out.append(summary.strip()).append("\n\n");
        }
        int n = 0;
        for (JsonlBody.Line l : JsonlBody.lines(file.body())) {
            JsonNode step = l.node();
            if (step == null || !step.isObject()) {
                throw new Stop(new Refused(
                        "bad_step", name, l.number(), name + " line " + l.number() + " is not a JSON object"));
            }
            n++;
            step(name, l.number(), n, step, level + 1, open, out);
        }
        open.removeLast();
    }

    private void step(String name, int line, int n, JsonNode step, int level, Deque<String> open, StringBuilder out)
            throws Stop {
        String type = step.path("type").asText("");
        String h = "#".repeat(level) + " Step " + n + ": ";
        switch (type) {
            case "instruction" -> {
                String text = field(name, line, step, "text");
                out.append(h).append("instruction\n\n").append(text.strip()).append("\n\n");
            }
            case "read" -> {
                String target = field(name, line, step, "target");
                Optional<String> text = targets.text(target);
                if (text.isEmpty()) {
                    throw new Stop(new Refused(
                            "missing_target",
                            name,
                            line,
                            name + " line " + line + ": read names " + target + ", which is no slice or memory file"));
                }
                SliceFile f = SliceFile.parse(text.get());
                boolean isRoutine = f.slice()
                        .map(s -> "routine".equals(s.path("body").path("type").asText()))
                        .orElse(false);
                out.append(h).append("read `").append(target).append("`\n\n");
                if (isRoutine) {
                    callouts(step, out);
                    routine(target, f, level + 1, open, out);
                    return;
                }
                String body = f.body().strip();
                out.append(body.isEmpty() ? "(empty)" : body).append("\n\n");
            }
            case "run" -> {
                String command = field(name, line, step, "command");
                StringBuilder cmd = new StringBuilder(command.strip());
                JsonNode args = step.get("args");
                if (args != null && !args.isNull()) {
                    if (!args.isArray()) {
                        throw new Stop(new Refused(
                                "bad_step", name, line, name + " line " + line + ": args must be an array of strings"));
                    }
                    for (JsonNode a : args) {
                        if (!a.isTextual()) {
                            throw new Stop(new Refused(
                                    "bad_step",
                                    name,
                                    line,
                                    name + " line " + line + ": args must be an array of strings"));
                        }
                        cmd.append(' ').append(quote(a.asText()));
                    }
                }
                out.append(h).append("run\n\n```sh\n").append(cmd).append("\n```\n\n");
            }
            default ->
                throw new Stop(new Refused(
                        "unknown_step",
                        name,
                        line,
                        name + " line " + line + ": unknown step type \"" + type + "\" (one of "
                                + String.join(", ", STEP_TYPES) + ")"));
        }
        callouts(step, out);
    }

    private static void callouts(JsonNode step, StringBuilder out) {
        JsonNode note = step.get("note");
        if (note != null && note.isTextual() && !note.asText().isBlank()) {
            out.append("> **Note:** ")
                    .append(note.asText().strip().replace("\n", "\n> "))
                    .append("\n\n");
        }
        JsonNode req = step.get("requirements");
        if (req != null && req.isArray() && !req.isEmpty()) {
            out.append("> **Requirements:**\n");
            for (JsonNode r : req) {
                out.append("> - ").append(r.asText().strip()).append('\n');
            }
            out.append('\n');
        }
    }

    private static String field(String name, int line, JsonNode step, String field) throws Stop {
        JsonNode v = step.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw new Stop(new Refused(
                    "bad_step",
                    name,
                    line,
                    name + " line " + line + ": a " + step.path("type").asText() + " step needs a non-empty string "
                            + field));
        }
        return v.asText();
    }

    /** A shell word for {@code s}: as is when plain, else single-quoted. */
    static String quote(String s) {
        if (!s.isEmpty() && PLAIN_ARG.matcher(s).matches()) {
            return s;
        }
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
