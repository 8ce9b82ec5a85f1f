package dev.memoryd.daemon.slices;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.slices.RoutineCompiler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Compiles the routine slices of a memory root ({@link RoutineCompiler}): a {@code read} step's
 * target is a slice by id ({@code .slices/<id>.slice}) or a memory file by path, read from the
 * working tree. Reads only; thread-safe.
 */
public final class Routines {
    private final SliceFiles slices;
    private final Path root;

    public Routines(SliceFiles slices, Path root) {
        this.slices = slices;
        this.root = root;
    }

    /** The routine {@code idOrPath} names as markdown, reads nesting at most {@code depth} routines. */
    public Outcome<String> compile(String idOrPath, int depth) {
        if (depth < 1 || depth > 32) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "depth must be between 1 and 32, not " + depth);
        }
        RoutineCompiler.Result r = new RoutineCompiler(this::text, depth).compile(idOrPath);
        if (r instanceof RoutineCompiler.Compiled c) {
            return Outcome.ok(c.markdown());
        }
        RoutineCompiler.Refused f = (RoutineCompiler.Refused) r;
        ErrorReason reason = f.rule().equals("missing_target") ? ErrorReason.NOT_FOUND : ErrorReason.SPEC_VIOLATION;
        return Outcome.fail(new Failure(
                reason, f.message(), Failure.ordered("rule", f.rule(), "routine", f.routine(), "line", f.line())));
    }

    /** A slice's text by id, else a memory or chunk file's by path; empty for anything else. */
    private Optional<String> text(String idOrPath) {
        Optional<String> slice = slices.read(idOrPath);
        if (slice.isPresent()) {
            return slice;
        }
        RepoPath p;
        try {
            p = RepoPath.of(idOrPath);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (!RootLayout.isContentFile(p.value())) {
            return Optional.empty();
        }
        Path f = root.resolve(p.value());
        try {
            return Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                    ? Optional.of(Files.readString(f, StandardCharsets.UTF_8))
                    : Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f, e);
        }
    }
}
