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
import java.util.regex.Pattern;

/**
 * What an imported markdown note becomes: one declaration appending it to a section of an
 * entity's notes file ({@code users/<user>/notes.md}, or a part's or relationship's), as an H3
 * subsection headed by the note's name ({@code ### trips/lisbon} for {@code trips/lisbon.md}),
 * its text below, trimmed (paragraphs kept, a run of blank lines between them made one; a code
 * block kept as it is, blank lines and headings in it too), its headings nested under that H3
 * and its frontmatter a code block ({@link NoteText}). A note the grammar cannot take as a
 * subsection (headings spanning more levels than fit below H3, a code fence or HTML comment left
 * open) is refused here with its line; the writer validates the rest (text rules, caps, locks) as
 * for any write. Pure.
 */
public final class NoteImport {
    /** Longest note accepted, in characters: a note is a subsection, not a document store. */
    public static final int MAX_CHARS = 256 * 1024;

    private static final Pattern LEADING_BLANK_LINES = Pattern.compile("\\A([ \\t]*\n)+");

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
        // Leading blank lines stay until the text is nested, so that a refusal's line numbers are the file's.
        String text = note.text().replace("\r\n", "\n").stripTrailing();
        if (text.isBlank()) {
            return refuse(note, "the note is empty");
        }
        if (text.length() > MAX_CHARS) {
            return refuse(
                    note, "the note has " + text.length() + " characters, over the " + MAX_CHARS + " a note may hold");
        }
        String open = MarkdownBlocks.openBlockProblem(text);
        if (open != null) {
            return refuse(note, open);
        }
        NoteText.Result nested = NoteText.nest(text);
        if (nested instanceof NoteText.Unfit unfit) {
            return refuse(note, unfit.why());
        }
        text = LEADING_BLANK_LINES.matcher(((NoteText.Fit) nested).text()).replaceFirst("");
        String[] lines = text.split("\n", -1);
        BitSet fenced = MarkdownBlocks.fencedLines(text);
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
