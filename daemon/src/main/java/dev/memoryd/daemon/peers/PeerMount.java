package dev.memoryd.daemon.peers;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * One peer mounted read-only beside the served root: another directory holding a memory root,
 * read from its Git HEAD, or from {@code rev} when the mount pins one, never from its working
 * tree. Its own peers are visible through it only when {@code nested} says so, and then only as
 * far as their own mounts allow, so containment can only narrow.
 *
 * @param name the name references use ({@code NAME:chunk-or-name-path}); 1-32 of a-z, 0-9 and
 *     {@code -}, starting with a letter
 * @param dir the peer's root directory (absolute)
 * @param rev the pinned revision (a commit id, branch or tag of the peer), or null for its HEAD
 * @param nested whether the peer's own peers are mounted through it
 */
public record PeerMount(String name, Path dir, String rev, boolean nested) {
    public static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");

    public PeerMount {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "invalid peer name '" + name + "': use 1-32 of a-z, 0-9 and -, starting with a letter");
        }
        if (dir == null) {
            throw new IllegalArgumentException("peer '" + name + "' names no directory");
        }
        dir = dir.toAbsolutePath().normalize();
        if (rev != null && (rev.isBlank() || rev.startsWith("-") || rev.chars().anyMatch(Character::isWhitespace))) {
            throw new IllegalArgumentException("peer '" + name + "': invalid revision '" + rev + "'");
        }
    }

    /**
     * A mount from its command-line form {@code NAME=DIR} or {@code NAME=DIR@REV}; a relative
     * {@code DIR} is taken from {@code base}. The revision is what follows the last {@code @}
     * when that holds no {@code /}, so a directory may contain {@code @}.
     */
    public static PeerMount parse(String spec, Path base, boolean nested) {
        int eq = spec.indexOf('=');
        if (eq <= 0 || eq == spec.length() - 1) {
            throw new IllegalArgumentException("a peer is NAME=DIR or NAME=DIR@REV, not '" + spec + "'");
        }
        String name = spec.substring(0, eq);
        String dir = spec.substring(eq + 1);
        String rev = null;
        int at = dir.lastIndexOf('@');
        if (at > 0 && dir.indexOf('/', at) < 0) {
            rev = dir.substring(at + 1);
            dir = dir.substring(0, at);
        }
        return new PeerMount(name, base.resolve(dir), rev, nested);
    }

    /** The same mount, its own peers visible through it or not. */
    public PeerMount withNested(boolean n) {
        return new PeerMount(name, dir, rev, n);
    }
}
