package dev.memoryd.daemon.notes;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.AppendSection;
import dev.memoryd.grammar.MarkdownBlocks;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.RepoPath;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an imported markdown note becomes: one declaration appending it to a section of an
 * entity's notes file ({@code users/<user>/notes.md}, or a part's or relationship's), as an H3
 * subsection headed by the note's name ({@code ### trips/lisbon} for {@code trips/lisbon.md}),
 * its text below, trimmed (paragraphs kept, a run of blank lines between them made one; a code
 * block kept as it is, blank lines and headings in it too). The note's own headings are nested
 * under that H3: each moves down by as many levels as puts the note's highest at H4 ({@code # Title}
 * becomes {@code #### Title}, {@code ### Costs} beside {@code ## Trip} becomes {@code #####
 * Costs}), so no heading of a note ends its subsection or the section. A note the grammar cannot
 * take as a subsection (headings spanning more than H4 to H6 can hold, a code fence or HTML comment
 * left open) is refused here with its line; the writer validates the rest (text rules, caps,
 * locks) as for any write. Pure.
 */
public final class NoteImport {
    /** Longest note accepted, in characters: a note is a subsection, not a document store. */
    public static final int MAX_CHARS = 256 * 1024;

    /** An ATX heading line: up to three spaces, one to six {@code #}, then a blank or the line's end. */
    private static final Pattern HEADING = Pattern.compile("( {0,3})(#{1,6})([ \\t].*)?");
    /** The level of the heading each note is put under. */
    private static final int NOTE_LEVEL = 3;

    private NoteImport() {}

    /** One note offered: its name (its path under the imported directory, without {@code .md}) and text. */
    public record Note(String name, String text) {
        public Note {
            if (name == null || name.isBlank() || name.contains("\n") || name.contains("\r")) {
                throw new IllegalArgumentException("a note's name is one non-blank line");
            }
            if (text == null) {
                throw new IllegalArgumentException("a note's text is required");
            }
        }
    }

    /** A note turned into its declaration, or why it cannot be. */
    public sealed interface Prepared permits Ready, Refused {
        String name();
    }

    public record Ready(String name, WriteRequest request) implements Prepared {}

    public record Refused(String name, Failure failure) implements Prepared, Result {}

    /** What became of one note. */
    public sealed interface Result permits Recorded, Refused {
        String name();
    }

    /** Recorded as its own commit; {@code token} is the event's evidence token. */
    public record Recorded(String name, String commit, String token) implements Result {}

    /**
     * Imports {@code notes} in order, one declaration each, through {@code writer}. Every ready
     * note is queued before any is awaited, so the writer takes them in large batches (one ledger
     * fsync and one ref move per batch, one commit per note). A note refused, here or by the writer,
     * does not stop the others.
     */
    public static List<Result> run(
            RepoPath notesFile,
            String section,
            List<Note> notes,
            String actor,
            String overCap,
            Function<WriteRequest, CompletableFuture<WriteOutcome>> writer)
            throws InterruptedException {
        List<Object> queued = new ArrayList<>(notes.size());
        for (Note n : notes) {
            Prepared p = prepare(notesFile, section, n, actor, overCap);
            queued.add(p instanceof Ready r ? writer.apply(r.request()) : p);
        }
        List<Result> out = new ArrayList<>(notes.size());
        for (int i = 0; i < notes.size(); i++) {
            String name = notes.get(i).name();
            if (queued.get(i) instanceof Refused r) {
                out.add(r);
                continue;
            }
            WriteOutcome o;
            try {
                o = ((CompletableFuture<?>) queued.get(i))
                        .thenApply(WriteOutcome.class::cast)
                        .get();
            } catch (ExecutionException e) {
                // The writer failed (not refused): this note is not recorded; the summary says so.
                out.add(new Refused(
                        name, Failure.of(ErrorReason.UNAVAILABLE, name + ": not recorded: " + e.getCause())));
                continue;
            }
            if (o instanceof WriteOutcome.Rejected rej) {
                Failure f = rej.failure();
                out.add(new Refused(name, new Failure(f.reason(), name + ": " + f.message(), f.details())));
            } else if (o instanceof WriteOutcome.Committed c) {
                out.add(new Recorded(
                        name,
                        c.commit(),
                        c.events().isEmpty() ? null : c.events().get(0).token()));
            } else {
                out.add(new Recorded(name, ((WriteOutcome.Unchanged) o).commit(), null));
            }
        }
        return out;
    }

    /**
     * The declaration appending {@code note} to {@code section} of {@code notesFile}; {@code overCap}
     * (null: none) is the grammar's override rationale for going past the section's word cap.
     */
    public static Prepared prepare(RepoPath notesFile, String section, Note note, String actor, String overCap) {
        String body = note.text().strip();
        if (body.isEmpty()) {
            return refuse(note, "the note is empty");
        }
        if (body.length() > MAX_CHARS) {
            return refuse(
                    note, "the note has " + body.length() + " characters, over the " + MAX_CHARS + " a note may hold");
        }
        String text = body.replace("\r\n", "\n");
        String open = MarkdownBlocks.openBlockProblem(text);
        if (open != null) {
            return refuse(note, open);
        }
        String[] lines = text.split("\n", -1);
        BitSet fenced = MarkdownBlocks.fencedLines(text);
        int highest = 7;
        int highestLine = -1;
        int lowest = 0;
        int lowestLine = -1;
        for (int i = 0; i < lines.length; i++) {
            Matcher h = fenced.get(i) ? null : HEADING.matcher(lines[i]);
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
            return refuse(
                    note,
                    "its headings run from H" + highest + " (line " + (highestLine + 1) + ") to H" + lowest + " (line "
                            + (lowestLine + 1) + "): nested under the note's H3 heading they would go past H6;"
                            + " a note may use three levels of headings");
        }
        for (int i = 0; down > 0 && i < lines.length; i++) {
            Matcher h = fenced.get(i) ? null : HEADING.matcher(lines[i]);
            if (h != null && h.matches()) {
                lines[i] = h.group(1)
                        + "#".repeat(down)
                        + lines[i].substring(h.group(1).length());
            }
        }
        // append_section takes one paragraph (a code block is one, its blank lines kept): a note of
        // several is one op per paragraph, all in one declaration, so it is still one commit; a run
        // of blank lines between paragraphs becomes one.
        List<Op> ops = new ArrayList<>();
        StringBuilder para = new StringBuilder("### " + note.name() + "\n");
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            if (l.isBlank() && !fenced.get(i)) {
                if (!para.isEmpty()) {
                    ops.add(new AppendSection(
                            notesFile, section, para.toString().strip(), null, List.of(), overCap));
                    para.setLength(0);
                }
            } else {
                para.append(l).append('\n');
            }
        }
        if (!para.isEmpty()) {
            ops.add(new AppendSection(notesFile, section, para.toString().strip(), null, List.of(), overCap));
        }
        WriteRequest req = new WriteRequest(List.copyOf(ops), "imported the note " + note.name(), actor, null, null);
        return new Ready(note.name(), req);
    }

    private static Refused refuse(Note note, String why) {
        return new Refused(note.name(), Failure.of(ErrorReason.INVALID_REQUEST, note.name() + ": " + why));
    }
}
