package dev.memoryd.daemon.read;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@code read} found: a memory file (or one of its sections) as of a commit or the working
 * tree. Hashes are present only when the read asked for them; {@code peer} only for a file of a
 * mounted peer. Immutable.
 *
 * @param path the file's path in its root (without a peer's {@code NAME:})
 * @param peer the peer the file was read from, if any
 * @param commit the commit read (the branch head for a working-tree read; null in a root without one)
 * @param sections the file's level-2 sections in file order
 * @param section the heading of the section read, when one was asked for
 * @param content the section's canonical body, or the whole file's text
 * @param hash the content hash of {@code content}, when hashes were asked for
 * @param drift the open drift item of a working-tree read whose file holds a person's edit not yet
 *     recorded (so {@code content} is not {@code commit}'s), if any
 */
public record ReadResult(
        String path,
        Optional<String> peer,
        String commit,
        List<Section> sections,
        Optional<String> section,
        String content,
        Optional<String> hash,
        Optional<String> drift) {
    public ReadResult {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(peer, "peer");
        sections = List.copyOf(sections);
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(hash, "hash");
        Objects.requireNonNull(drift, "drift");
    }

    /** This result of a file whose open drift item is {@code id}. */
    public ReadResult withDrift(String id) {
        return new ReadResult(path, peer, commit, sections, section, content, hash, Optional.of(id));
    }

    /**
     * One level-2 section: its heading, its anchor (null when the heading has no anchor line; the
     * wire says {@code null} too) and, when asked for, its content hash.
     */
    public record Section(String name, String anchor, Optional<String> hash) {
        public Section {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(hash, "hash");
        }
    }
}
