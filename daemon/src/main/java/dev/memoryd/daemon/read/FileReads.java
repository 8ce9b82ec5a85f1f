package dev.memoryd.daemon.read;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.grammar.MemoryDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A memory file's text as a {@link ReadResult}: the one rule for what {@code read} answers,
 * whether the text came from the working tree, a commit or a mounted peer. Pure.
 */
public final class FileReads {
    private FileReads() {}

    /**
     * The result of reading {@code path} (or its section {@code section}, by heading or anchor)
     * whose text is {@code text}: not_found when there is no text, unknown_section (naming the
     * file's sections) when the section is not there.
     *
     * @param peer the peer the text came from, if any (named in the result and in a not_found message)
     * @param at the commit asked for, if any (named in a not_found message)
     * @param hash the content hasher, or empty for a result without hashes
     */
    public static Outcome<ReadResult> of(
            String path,
            Optional<String> peer,
            String commit,
            Optional<String> text,
            String section,
            String at,
            Optional<UnaryOperator<String>> hash) {
        if (text.isEmpty()) {
            return Outcome.fail(
                    ErrorReason.NOT_FOUND,
                    "no file " + path + (at != null ? " at " + at : "")
                            + peer.map(x -> " in peer '" + x + "'").orElse(""));
        }
        MemoryDocument doc = MemoryDocument.parse(text.get());
        List<ReadResult.Section> sections = new ArrayList<>();
        MemoryDocument.Section target = null;
        for (MemoryDocument.Section s : doc.sections()) {
            if (s.level() != 2) {
                continue;
            }
            sections.add(new ReadResult.Section(s.heading(), s.anchor(), hash.map(h -> h.apply(doc.canonicalBody(s)))));
            if (section != null && (section.equals(s.heading()) || section.equals(s.anchor()))) {
                target = s;
            }
        }
        if (section == null) {
            return Outcome.ok(new ReadResult(
                    path,
                    peer,
                    commit,
                    sections,
                    Optional.empty(),
                    text.get(),
                    hash.map(h -> h.apply(text.get())),
                    Optional.empty()));
        }
        if (target == null) {
            return Outcome.fail(new Failure(
                    ErrorReason.UNKNOWN_SECTION,
                    "no section '" + section + "' in " + path,
                    Map.of(
                            "sections",
                            doc.sections().stream()
                                    .filter(s -> s.level() == 2)
                                    .map(MemoryDocument.Section::heading)
                                    .toList())));
        }
        String body = doc.canonicalBody(target);
        return Outcome.ok(new ReadResult(
                path,
                peer,
                commit,
                sections,
                Optional.of(target.heading()),
                body,
                hash.map(h -> h.apply(body)),
                Optional.empty()));
    }
}
