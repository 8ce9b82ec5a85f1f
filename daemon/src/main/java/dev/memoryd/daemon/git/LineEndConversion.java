package dev.memoryd.daemon.git;

import dev.memoryd.daemon.layout.RootLayout;
import java.io.IOException;
import java.util.Optional;
import org.eclipse.jgit.lib.ConfigConstants;
import org.eclipse.jgit.lib.CoreConfig;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * A conversion of line ends that git would make when it writes a memory file into the working
 * tree ({@code core.autocrlf true}, or {@code eol=crlf} attributes). memoryd writes files and their
 * blobs byte for byte, so under such a conversion every checkout, reset or stash would rewrite the
 * files it touches, and memoryd would record git's rewrite as the human's edit. A conversion on
 * the way in alone ({@code core.autocrlf input}, {@code text=auto} on Linux) rewrites no file and
 * is left alone. {@code init} and {@code clone} set {@code core.autocrlf false} in the root; a
 * root that converts anyway is not served. Read with JGit's own rules (config and attributes, as
 * {@code git checkout} applies them). Immutable.
 *
 * @param path a memory file git would convert
 * @param cause the setting that makes it convert, as a human would change it
 */
public record LineEndConversion(String path, String cause) {
    /** The first memory file of {@code commit}'s tree whose line ends git would convert, if any. */
    public static Optional<LineEndConversion> of(Repository repo, ObjectId commit) throws IOException {
        if (commit == null) {
            return Optional.empty();
        }
        CoreConfig.AutoCRLF auto = repo.getConfig()
                .getEnum(
                        ConfigConstants.CONFIG_CORE_SECTION,
                        null,
                        ConfigConstants.CONFIG_KEY_AUTOCRLF,
                        CoreConfig.AutoCRLF.FALSE);
        try (RevWalk rw = new RevWalk(repo);
                TreeWalk tw = new TreeWalk(repo)) {
            tw.addTree(rw.parseCommit(commit).getTree());
            tw.setRecursive(true);
            while (tw.next()) {
                String p = tw.getPathString();
                if (!RootLayout.isMemoryFile(p)) {
                    continue;
                }
                CoreConfig.EolStreamType out = tw.getEolStreamType(TreeWalk.OperationType.CHECKOUT_OP);
                // git writes a blob with LF line ends into the working tree as it is unless it is to end
                // them with CRLF (JGit's LF types on the way out stand for no change in git)
                if (out == CoreConfig.EolStreamType.AUTO_CRLF || out == CoreConfig.EolStreamType.TEXT_CRLF) {
                    return Optional.of(new LineEndConversion(
                            p,
                            auto != CoreConfig.AutoCRLF.FALSE
                                    ? "core.autocrlf " + auto.name().toLowerCase(java.util.Locale.ROOT)
                                    : "a text or eol attribute in .gitattributes"));
                }
            }
        }
        return Optional.empty();
    }

    /** Why the root is not served, and how to serve it. */
    public String refusal(java.nio.file.Path root) {
        return "git converts the line ends of memory files in " + root + " " + why()
                + ". memoryd serves a root whose memory files git keeps byte for byte: " + fix(root);
    }

    /** Which file, by what, and what the conversion would do to a served root. */
    public String why() {
        return "(" + path + ", by " + cause + "): a checkout, reset or stash would rewrite the files it touches, and"
                + " memoryd would record git's rewrite as your edits";
    }

    /** What ends the conversion in {@code root}, as a human would do it. */
    public String fix(java.nio.file.Path root) {
        return cause.startsWith("core.autocrlf")
                ? "git -C " + root + " config core.autocrlf false"
                : "remove the text/eol attributes that cover users/ from .gitattributes (or give users/ -text)";
    }
}
