package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.lib.Repository;

/**
 * A form of git's index that memoryd can neither read nor keep in step with the branch: a split
 * index ({@code core.splitIndex}, {@code git update-index --split-index}: most entries kept in a
 * shared file the index names in its {@code link} extension) or a sparse one (a cone-mode sparse
 * checkout with {@code index.sparse}: whole directories folded into one entry, its {@code sdir}
 * extension). JGit reads neither ("DIRC extension 'link' not supported", "zero length name"), so a
 * root with one is not served and a batch that meets one is refused, naming the setting and the
 * command that makes the index whole again. Other forms (version 4's compressed paths, the
 * untracked cache, fsmonitor's data) are read and kept. Immutable.
 *
 * @param kind {@code split} or {@code sparse}
 * @param cause what made it so, as a human would name it
 */
public record IndexFormat(String kind, String cause) {
    public static final String SPLIT = "split";
    public static final String SPARSE = "sparse";

    public IndexFormat {
        if (!kind.equals(SPLIT) && !kind.equals(SPARSE)) {
            throw new IllegalArgumentException("kind must be split or sparse, not " + kind);
        }
    }

    /**
     * The unreadable form {@code repo}'s index has, or will have at git's next write of it
     * ({@code core.splitIndex true} in any config git reads); empty when memoryd can keep it.
     */
    public static Optional<IndexFormat> of(Repository repo) throws IOException {
        Optional<IndexFormat> config = ofConfig(repo.getConfig());
        return config.isPresent() ? config : ofFile(repo.getIndexFile().toPath());
    }

    /** The split index git's config asks for ({@code core.splitIndex true}), which its next write of the index makes. */
    public static Optional<IndexFormat> ofConfig(Config config) {
        return config.getBoolean("core", null, "splitIndex", false)
                ? Optional.of(new IndexFormat(SPLIT, "core.splitIndex true"))
                : Optional.empty();
    }

    /** The unreadable form the index file {@code index} has, by its extensions; empty for none or no file. */
    public static Optional<IndexFormat> ofFile(Path index) throws IOException {
        byte[] b;
        try {
            b = Files.readAllBytes(index);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        return extension(b, "link")
                ? Optional.of(new IndexFormat(SPLIT, "git update-index --split-index"))
                : extension(b, "sdir") ? Optional.of(new IndexFormat(SPARSE, "index.sparse true")) : Optional.empty();
    }

    /**
     * Whether the index bytes {@code b} carry the extension {@code sig}. Walks the entries of
     * versions 2 to 4 to find where the extensions begin; bytes that are no index of those
     * versions carry none (JGit names what is wrong with them).
     */
    static boolean extension(byte[] b, String sig) {
        int hash = 20;
        if (b.length < 12 + hash || b[0] != 'D' || b[1] != 'I' || b[2] != 'R' || b[3] != 'C') {
            return false;
        }
        int version = readInt(b, 4);
        long entries = readInt(b, 8) & 0xffffffffL;
        if (version < 2 || version > 4) {
            return false;
        }
        int p = 12;
        int end = b.length - hash;
        for (long i = 0; i < entries; i++) {
            int start = p;
            p += 60; // stat fields and object id
            if (p + 2 > end) {
                return false;
            }
            int flags = ((b[p] & 0xff) << 8) | (b[p + 1] & 0xff);
            p += 2;
            if (version >= 3 && (flags & 0x4000) != 0) {
                p += 2; // extended flags
            }
            if (version == 4) {
                while (p < end && (b[p] & 0x80) != 0) {
                    p++; // the varint of how much of the previous path is kept
                }
                p++;
                while (p < end && b[p] != 0) {
                    p++;
                }
                p++; // the path's end, with no padding
            } else {
                while (p < end && b[p] != 0) {
                    p++;
                }
                p = start + ((p - start + 8) & ~7); // one to eight NULs to a multiple of eight
            }
            if (p > end) {
                return false;
            }
        }
        while (p + 8 <= end) {
            if (new String(b, p, 4, StandardCharsets.ISO_8859_1).equals(sig)) {
                return true;
            }
            long size = readInt(b, p + 4) & 0xffffffffL;
            if (size > end - p - 8) {
                return false;
            }
            p += 8 + (int) size;
        }
        return false;
    }

    private static int readInt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    /** What the index is and what it would do to a served root. */
    public String why() {
        return (kind.equals(SPLIT) ? "git's index is split (" : "git's index is sparse (") + cause
                + "), a form memoryd cannot read, so it could not keep the index in step with the branch";
    }

    /** What makes the index whole again in {@code root}, as a human would do it. */
    public String fix(Path root) {
        return kind.equals(SPLIT)
                ? "git -C " + root + " config core.splitIndex false && git -C " + root
                        + " update-index --no-split-index"
                : "git -C " + root + " sparse-checkout disable";
    }

    /** Why the root is not served, and how to serve it. */
    public String refusal(Path root) {
        return why() + "; nothing was changed. Serve it once the index is whole: " + fix(root);
    }
}
