package dev.memoryd.daemon.layout;

import java.io.IOException;

/**
 * A memory file whose content cannot be taken as its text: bytes that are not UTF-8 ({@link
 * Utf8.NotUtf8}), or not a regular file at all (a symbolic link, which memoryd never follows: its
 * target may be outside the root). The message says what is wrong and what to do; {@link #shown}
 * is what the drift item shows in the text's place, never anything to write.
 */
public class NotMemoryText extends IOException {
    private static final long serialVersionUID = 1L;
    private final transient String shown;
    private final boolean link;

    protected NotMemoryText(String message, String shown) {
        this(message, shown, false);
    }

    private NotMemoryText(String message, String shown, boolean link) {
        super(message);
        this.shown = shown;
        this.link = link;
    }

    /** Whether the file is a symbolic link (rather than bytes that are not UTF-8). */
    public boolean isLink() {
        return link;
    }

    /** {@code path} is a symbolic link to {@code target}. */
    public static NotMemoryText symlink(String path, String target) {
        return new NotMemoryText(
                path + " is a symbolic link (to " + target + "); memory files are regular files and memoryd does"
                        + " not follow links: put the file's text back in place of the link (the link is left as it is)",
                "-> " + target + "\n",
                true);
    }

    /** What to show in place of the text: the lossy decoding, or the link's target. */
    public String shown() {
        return shown;
    }
}
