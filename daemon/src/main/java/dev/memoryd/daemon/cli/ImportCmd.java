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
        JsonNode failed; // the error reply of the first part that failed as a whole, or null
        try (SocketClient c = Main.connect(config())) {
            Parts parts = new Parts(c, results, bar);
            try {
                sendAll(files, results, bar, parts);
            } catch (IOException e) {
                parts.broke(e);
            }
            failed = parts.failed;
        }
        bar.done();
        results = inFileOrder(files, results);
        double secs = (System.nanoTime() - t0) / 1e9;
        int refused = 0;
        int imported = 0;
        for (JsonNode r : results) {
            refused += r.has("reason") ? 1 : 0;
            imported += r.has("commit") ? 1 : 0;
        }
        int notImported = files.size() - imported - refused;
        ObjectNode summary = JsonRpc.MAPPER.createObjectNode();
        summary.put("files", files.size())
                .put("imported", imported)
                .put("refused", refused)
                .put("seconds", Math.round(secs * 1000) / 1000.0);
        summary.put("files_per_s", secs > 0 ? Math.round(files.size() / secs) : 0);
        if (failed != null) {
            JsonNode e = failed.get("error");
            summary.putObject("failed")
                    .put("notes", notImported)
                    .put("reason", e.path("data").path("reason").asText("error"))
                    .put("message", e.path("message").asText());
        }
        if (out.on()) {
            summary.set("results", results);
            out.print(JsonRpc.MAPPER.createObjectNode().set("result", summary));
        } else {
            System.out.println("imported " + summary.get("imported") + " of " + files.size() + " notes into "
                    + notesPath() + " (" + section + ") in " + summary.get("seconds") + " s, "
                    + summary.get("files_per_s")
                    + " files/s; refused " + refused
                    + (failed != null ? "; not imported " + notImported : ""));
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
        if (failed != null) {
            // The notes counted as imported are recorded; of the rest, none was taken when the daemon
            // refused their part, and those sent when the connection failed may have been.
            Main.print(failed);
            return Main.PROBLEMS;
        }
        return refused == 0 ? Main.OK : Main.PROBLEMS;
    }

    /** Reads the notes, sends them in parts and reads the replies; a refusal made here goes to {@code results}. */
    private void sendAll(List<Path> files, ArrayNode results, Progress bar, Parts parts) throws IOException {
        ArrayNode part = JsonRpc.MAPPER.createArrayNode();
        int bytes = 0;
        int limit = config().maxLineBytes() - ENVELOPE_BYTES;
        for (Path f : files) {
            if (parts.failed != null) {
                break; // nothing more is sent once a part failed as a whole
            }
            String name = nameOf(f);
            String text;
            try {
                text = Utf8.decode(Files.readAllBytes(f), name);
            } catch (Utf8.NotUtf8 e) {
                refuse(results, bar, name, "invalid_request", "not UTF-8 text (byte " + e.offset() + ")");
                continue;
            } catch (IOException e) {
                refuse(results, bar, name, "invalid_request", "cannot be read (" + e.getMessage() + ")");
                continue;
            }
            int size = jsonBytes(text) + jsonBytes(name) + 32;
            if (size > limit) {
                refuse(
                        results,
                        bar,
                        name,
                        "too_large",
                        size + " bytes as JSON, more than one request carries (" + limit + "); split the note");
                continue;
            }
            if (!part.isEmpty() && (bytes + size > limit || part.size() >= PART_NOTES)) {
                parts.send(params(part));
                part = JsonRpc.MAPPER.createArrayNode();
                bytes = 0;
            }
            part.addObject().put("name", name).put("text", text);
            bytes += size;
        }
        if (!part.isEmpty() && parts.failed == null) {
            parts.send(params(part));
        }
        parts.finish();
    }

    /** A note refused here, before the daemon sees it: its result names it, the reason and why. */
    private static void refuse(ArrayNode results, Progress bar, String name, String reason, String why) {
        results.addObject().put("name", name).put("reason", reason).put("message", name + ": " + why);
        bar.advance(1);
    }

    /**
     * The parts on their way: the next is sent while the daemon still works on the one before, so
     * it never waits for this process to read and frame the next files. At most two are
     * outstanding; their replies come in the order they were sent. After a part fails as a whole
     * no further one is sent, and the replies of those already sent are still read and counted.
     */
    private static final class Parts {
        private final SocketClient c;
        private final ArrayNode results;
        private final Progress bar;
        private final java.util.ArrayDeque<Integer> sizes = new java.util.ArrayDeque<>();
        JsonNode failed;

        Parts(SocketClient c, ArrayNode results, Progress bar) {
            this.c = c;
            this.results = results;
            this.bar = bar;
        }

        void send(ObjectNode params) throws IOException {
            c.send("notes.import", params);
            sizes.add(params.get("notes").size());
            while (sizes.size() > 1) {
                receive();
            }
        }

        void finish() throws IOException {
            while (!sizes.isEmpty()) {
                receive();
            }
        }

        /**
         * The connection failed (no reply in time, the daemon gone): a part sent and not answered
         * may or may not be recorded, and the summary says so rather than counting it either way.
         */
        void broke(IOException e) {
            sizes.clear();
            if (failed == null) {
                ObjectNode reply = JsonRpc.MAPPER.createObjectNode();
                ObjectNode error = reply.putObject("error")
                        .put(
                                "message",
                                "the connection to the daemon failed (" + e.getMessage() + "); notes sent and not"
                                        + " answered may be recorded: look at 'history' of the notes file before"
                                        + " importing them again");
                error.putObject("data").put("reason", "unavailable");
                failed = reply;
            }
        }

        private void receive() throws IOException {
            JsonNode reply = c.receive();
            int n = sizes.remove();
            if (reply.has("error")) {
                if (failed == null) {
                    failed = reply;
                }
                return;
            }
            results.addAll((ArrayNode) reply.get("result").get("results"));
            bar.advance(n);
        }
    }

    /** The parameters of one {@code notes.import} call carrying {@code notes}. */
    private ObjectNode params(ArrayNode notes) {
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
        return p;
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
