package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.layout.Utf8;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memoryd import DIR --user U}: every {@code .md} file under DIR (recursively, hidden
 * names and symbolic links skipped, in path order) becomes one note in the user's notes file
 * through {@code notes.import}, sent in parts under the request size limit. A file that is not
 * UTF-8 is refused here; the daemon refuses what the grammar cannot take. Each refusal is named
 * with its reason and the rest carry on. Prints a progress bar on a terminal and a summary;
 * exits 0 when every file was imported, 1 when some were refused.
 */
@Command(
        name = "import",
        description = {
            MethodSummaries.NOTES_IMPORT,
            "Each markdown file of the directory is one note; needs the daemon."
        })
final class ImportCmd extends Printing implements Callable<Integer> {
    /** Room a request keeps for what is not the notes' texts and names: its envelope and each note's keys. */
    private static final int ENVELOPE_BYTES = 16 * 1024;

    private static final int PART_NOTES = 500;

    @Parameters(index = "0", description = "the directory of notes")
    Path dir;

    @Option(names = "--user", required = true, description = "the user whose notes.md receives the notes")
    String user;

    @Option(names = "--part", description = "a part of the user: its notes.md instead")
    String part;

    @Option(names = "--section", defaultValue = "Drafts", description = "the narrative notes section to append to")
    String section;

    @Option(
            names = "--override-rationale",
            description = "why the notes may take the section past its word cap"
                    + " (recorded in each event); without it, notes past the cap are refused with cap_exceeded")
    String overCap;

    @Option(names = "--actor", defaultValue = "import", description = "recorded as the events' actor")
    String actor;

    @Override
    public Integer call() throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException("not a directory: " + dir);
        }
        List<Path> files = noteFiles(dir);
        ArrayNode results = JsonRpc.MAPPER.createArrayNode();
        Progress bar = new Progress(files.size(), !out.on() && System.console() != null);
        long t0 = System.nanoTime();
        try (SocketClient c = Main.connect(config())) {
            ArrayNode part = JsonRpc.MAPPER.createArrayNode();
            int bytes = 0;
            int limit = config().maxLineBytes() - ENVELOPE_BYTES;
            for (Path f : files) {
                String name = nameOf(f);
                String text;
                try {
                    text = Utf8.decode(Files.readAllBytes(f), name);
                } catch (Utf8.NotUtf8 e) {
                    results.addObject()
                            .put("name", name)
                            .put("reason", "invalid_request")
                            .put("message", name + ": not UTF-8 text (byte " + e.offset() + ")");
                    bar.advance(1);
                    continue;
                }
                int size = jsonBytes(text) + jsonBytes(name) + 32;
                if (size > limit) {
                    results.addObject()
                            .put("name", name)
                            .put("reason", "too_large")
                            .put(
                                    "message",
                                    name + ": " + size + " bytes as JSON, more than one request carries (" + limit
                                            + "); split the note");
                    bar.advance(1);
                    continue;
                }
                if (!part.isEmpty() && (bytes + size > limit || part.size() >= PART_NOTES)) {
                    if (send(c, part, results) != null) {
                        return out.print(lastError);
                    }
                    bar.advance(part.size());
                    part = JsonRpc.MAPPER.createArrayNode();
                    bytes = 0;
                }
                part.addObject().put("name", name).put("text", text);
                bytes += size;
            }
            if (!part.isEmpty()) {
                if (send(c, part, results) != null) {
                    return out.print(lastError);
                }
                bar.advance(part.size());
            }
        }
        bar.done();
        results = inFileOrder(files, results);
        double secs = (System.nanoTime() - t0) / 1e9;
        int refused = 0;
        for (JsonNode r : results) {
            refused += r.has("reason") ? 1 : 0;
        }
        ObjectNode summary = JsonRpc.MAPPER.createObjectNode();
        summary.put("files", files.size())
                .put("imported", files.size() - refused)
                .put("refused", refused)
                .put("seconds", Math.round(secs * 1000) / 1000.0);
        summary.put("files_per_s", secs > 0 ? Math.round(files.size() / secs) : 0);
        if (out.on()) {
            summary.set("results", results);
            out.print(JsonRpc.MAPPER.createObjectNode().set("result", summary));
        } else {
            System.out.println("imported " + summary.get("imported") + " of " + files.size() + " notes into "
                    + notesPath() + " (" + section + ") in " + summary.get("seconds") + " s, "
                    + summary.get("files_per_s")
                    + " files/s; refused " + refused);
            int shown = 0;
            for (JsonNode r : results) {
                if (r.has("reason") && shown++ < 20) {
                    System.out.println("  refused " + r.get("reason").asText() + ": "
                            + r.get("message").asText());
                }
            }
            if (shown > 20) {
                System.out.println("  ... and " + (shown - 20) + " more (--json lists every one)");
            }
        }
        return refused == 0 ? Main.OK : Main.PROBLEMS;
    }

    private JsonNode lastError;

    /** Sends one part; returns the error reply (the call failed as a whole), or null. */
    private JsonNode send(SocketClient c, ArrayNode notes, ArrayNode results) throws IOException {
        ObjectNode p = JsonRpc.MAPPER
                .createObjectNode()
                .put("user", user)
                .put("section", section)
                .put("actor", actor);
        if (part != null) {
            p.put("part", part);
        }
        if (overCap != null) {
            p.put("override_rationale", overCap);
        }
        p.set("notes", notes);
        JsonNode reply = c.call("notes.import", p);
        if (reply.has("error")) {
            lastError = reply;
            return reply;
        }
        results.addAll((ArrayNode) reply.get("result").get("results"));
        return null;
    }

    /** {@code results} (a refusal made here comes before the results of the part still being gathered) in file order. */
    private ArrayNode inFileOrder(List<Path> files, ArrayNode results) {
        java.util.Map<String, Integer> order = new java.util.HashMap<>();
        for (Path f : files) {
            order.put(nameOf(f), order.size());
        }
        List<JsonNode> sorted = new ArrayList<>();
        results.forEach(sorted::add);
        sorted.sort(java.util.Comparator.comparingInt(
                r -> order.getOrDefault(r.path("name").asText(), Integer.MAX_VALUE)));
        ArrayNode out = JsonRpc.MAPPER.createArrayNode();
        sorted.forEach(out::add);
        return out;
    }

    /** The bytes {@code s} takes as a JSON string's content in UTF-8, as the socket client sends it. */
    static int jsonBytes(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r' || c == '\b' || c == '\f') {
                n += 2;
            } else if (c < 0x20 || Character.isSurrogate(c) && !Character.isSurrogatePair(c, next(s, i))) {
                n += 6;
            } else if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    private static char next(String s, int i) {
        return i + 1 < s.length() ? s.charAt(i + 1) : 0;
    }

    private String notesPath() {
        return "users/" + user + (part == null ? "" : "/parts/" + part) + "/notes.md";
    }

    private String nameOf(Path f) {
        String rel = dir.relativize(f).toString().replace('\\', '/');
        return rel.substring(0, rel.length() - ".md".length());
    }

    /** The importable notes: regular {@code .md} files, no hidden name on the way, in path order. */
    static List<Path> noteFiles(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .filter(p -> p.getFileName().toString().endsWith(".md"))
                    .filter(p -> {
                        for (Path n : dir.relativize(p)) {
                            if (n.toString().startsWith(".")) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .sorted()
                    .forEach(out::add);
        }
        return out;
    }

    /** A one-line bar on stderr, redrawn in place; nothing when not on a terminal. */
    private static final class Progress {
        private final int total;
        private final boolean on;
        private int done;

        Progress(int total, boolean on) {
            this.total = total;
            this.on = on;
        }

        void advance(int n) {
            done += n;
            if (on && total > 0) {
                int width = 30;
                int filled = (int) ((long) done * width / total);
                System.err.print("\r[" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + done + "/" + total);
                System.err.flush();
            }
        }

        void done() {
            if (on && total > 0) {
                System.err.println();
            }
        }
    }
}
