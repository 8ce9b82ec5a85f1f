package dev.memoryd.daemon.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The frame of a training run the launcher starts to make a class-data archive or AOT cache
 * ({@link CdsTraining}, {@link ServeTraining}): a temp directory for the body, nothing printed
 * while it runs, the directory removed after, each failure named on stderr, and the JVM's exit
 * code 0 only when there was none (the launcher then keeps the archive).
 */
final class TrainingRun {
    private TrainingRun() {}

    /** What a training run does in {@code tmp}, adding what went wrong to {@code failed} (thread-safe). */
    interface Body {
        void run(Path tmp, List<String> failed) throws Exception;
    }

    static void exitAfter(String prefix, String tmpName, Body body) throws IOException {
        Path tmp = Files.createTempDirectory(tmpName);
        PrintStream out = System.out;
        PrintStream err = System.err;
        PrintStream nul = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        List<String> failed = Collections.synchronizedList(new ArrayList<>());
        System.setOut(nul);
        System.setErr(nul);
        try {
            body.run(tmp, failed);
        } catch (Exception e) {
            failed.add(e.toString()); // the run's own failure: no archive, and the reason said
        } finally {
            System.setOut(out);
            System.setErr(err);
            delete(tmp);
        }
        failed.forEach(f -> System.err.println(prefix + f));
        System.exit(failed.isEmpty() ? 0 : 1);
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
