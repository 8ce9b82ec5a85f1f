package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import org.eclipse.jgit.lib.PersonIdent;

/** Plain git run on a repository the store wrote, and the identity its test commits carry. */
final class GitCli {
    static final PersonIdent WHO = new PersonIdent("t", "t@example.com", Instant.EPOCH, java.time.ZoneOffset.UTC);

    private GitCli() {}

    /** Runs {@code git -C root args}; its output, trimmed, after asserting that it succeeded. */
    static String git(Path root, String... args) throws Exception {
        String[] cmd = new String[args.length + 3];
        cmd[0] = "git";
        cmd[1] = "-C";
        cmd[2] = root.toString();
        System.arraycopy(args, 0, cmd, 3, args.length);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.waitFor(), out);
        return out;
    }
}
