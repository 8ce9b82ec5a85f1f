package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.git.LineEndConversion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.lib.ConfigConstants;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;

/**
 * Whether git, as it is set up now, would convert the line ends of memory files it writes into
 * the working tree ({@link LineEndConversion}), for a daemon already serving: {@code serve}
 * refuses such a root at its start, and a human may set {@code core.autocrlf true} or commit an
 * {@code eol=crlf} attribute at any moment after. From then on every checkout, reset or stash
 * would rewrite the files it touches with CRLF, and a capture would record git's rewrite as the
 * human's edit of every line. While git would convert, each batch is refused before anything is
 * captured or written; batches go on once it would not.
 *
 * <p>What decides it: the repository's and the user's git config (JGit reads them again when
 * their files change), {@code .git/info/attributes}, the file {@code core.attributesFile} names,
 * and the {@code .gitattributes} files of the branch head. The head's tree is walked again only
 * when one of those changed or a commit memoryd did not make was captured ({@link
 * #headMovedByGit}): memoryd's own commits never touch a {@code .gitattributes}, so a batch
 * otherwise pays a few stats.
 *
 * <p>Thread-safety: the writer thread only; {@link #now} may be read from any thread.
 */
final class LineEndCheck {
    private final WriterState s;
    /** What the last walk was decided by; null: never walked. */
    private List<Object> decidedBy;
    /** Bumped for every commit memoryd captured but did not make: its tree may bring attributes. */
    private long gitHeads;

    private volatile Optional<LineEndConversion> last = Optional.empty();

    LineEndCheck(WriterState s) {
        this.s = s;
    }

    /** The branch moved to a commit made with git: its {@code .gitattributes} are read again. */
    void headMovedByGit() {
        gitHeads++;
    }

    /** The conversion the last batch found (empty: none), for {@code ping}. */
    Optional<LineEndConversion> now() {
        return last;
    }

    /** The refusal of a batch while git would convert memory files' line ends; empty when it would not. */
    Optional<Failure> refusal() throws IOException {
        if (!s.files.workTree()) {
            return Optional.empty(); // git writes no working-tree file of a branch not checked out
        }
        Repository repo = s.git.repository();
        StoredConfig config = repo.getConfig();
        String attributesFile =
                config.getString(ConfigConstants.CONFIG_CORE_SECTION, null, ConfigConstants.CONFIG_KEY_ATTRIBUTESFILE);
        List<Object> inputs = List.of(
                String.valueOf(config.getString(
                        ConfigConstants.CONFIG_CORE_SECTION, null, ConfigConstants.CONFIG_KEY_AUTOCRLF)),
                String.valueOf(
                        config.getString(ConfigConstants.CONFIG_CORE_SECTION, null, ConfigConstants.CONFIG_KEY_EOL)),
                stamp(repo.getDirectory().toPath().resolve("info").resolve("attributes")),
                attributesFile == null
                        ? "none"
                        : stamp(repo.getFS().resolve(null, attributesFile).toPath()),
                gitHeads);
        if (!inputs.equals(decidedBy)) {
            last = LineEndConversion.of(repo, s.git.head());
            decidedBy = inputs;
        }
        return last.map(c -> refusal(c, s.files.root()));
    }

    private static Failure refusal(LineEndConversion c, Path root) {
        return new Failure(
                ErrorReason.UNAVAILABLE,
                "git now converts the line ends of memory files " + c.why()
                        + "; nothing was written or captured. memoryd writes again once git keeps memory files byte"
                        + " for byte (" + c.fix(root) + "): retry then",
                Map.of("line_ends", c.cause()));
    }

    /** A file's identity and change time, or "none": what tells that git may read it differently now. */
    private static Object stamp(Path p) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return List.of(String.valueOf(a.fileKey()), a.lastModifiedTime(), a.size());
        } catch (NoSuchFileException e) {
            return "none";
        }
    }
}
