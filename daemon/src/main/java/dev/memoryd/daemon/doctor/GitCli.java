package dev.memoryd.daemon.doctor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the real {@code git} in a root, read-only: {@code GIT_OPTIONAL_LOCKS=0} keeps commands such
 * as {@code diff} from refreshing (writing) the index, so looking changes nothing.
 */
final class GitCli {
    /** A finished git command: exit code and what it printed (stdout and stderr together). */
    record Result(int code, String output) {}

    /** Thrown when there is no {@code git} to run. */
    static final class NoGit extends IOException {
        NoGit(IOException cause) {
            super("git is not on PATH: " + cause.getMessage(), cause);
        }
    }

    private final Path root;

    GitCli(Path root) {
        this.root = root;
    }

    Result run(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", root.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("GIT_OPTIONAL_LOCKS", "0");
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new NoGit(e);
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            return new Result(p.waitFor(), out.strip());
        } catch (InterruptedException e) {
            p.destroy();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while git " + String.join(" ", args) + " ran", e);
        }
    }
}
