package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.app.Daemon;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The training run of the class-data sharing archive {@code bin/memoryd} builds next to the jar
 * ({@code java -XX:ArchiveClassesAtExit=memoryd.jsa -cp memoryd.jar ...CdsTraining}): runs the
 * everyday commands, on both sides of the socket, against a throwaway root in a temp directory,
 * so the archive holds the classes they load. Prints nothing; touches nothing outside the temp
 * directory, which it removes. Exit 0 when every command ran as expected, 1 otherwise (the
 * launcher then keeps no archive), each unexpected exit named on stderr.
 */
public final class CdsTraining {
    private CdsTraining() {}

    public static void main(String[] args) throws Exception {
        Path tmp = Files.createTempDirectory("memoryd-cds");
        PrintStream out = System.out;
        PrintStream err = System.err;
        PrintStream nul = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        java.util.List<String> failed = new java.util.ArrayList<>();
        System.setOut(nul);
        System.setErr(nul);
        try {
            train(tmp, failed);
        } finally {
            System.setOut(out);
            System.setErr(err);
            delete(tmp);
        }
        failed.forEach(f -> System.err.println("memoryd: training run: unexpected exit: " + f));
        System.exit(failed.isEmpty() ? 0 : 1);
    }

    private static void train(Path tmp, java.util.List<String> failed) throws IOException {
        Path root = tmp.resolve("memory");
        Path key = tmp.resolve("ledger.key");
        MemorydConfig cfg = MemorydConfig.defaults(root, key);
        Memoryd.init(cfg, null);
        String r = root.toString();
        String k = key.toString();
        Path decl = Files.writeString(
                tmp.resolve("decl.json"),
                "{\"rationale\":\"training\",\"ops\":[{\"op\":\"create_entity\","
                        + "\"user_id\":\"trainee\",\"entity_type\":\"user\",\"entity_id\":\"trainee\",\"title\":\"Trainee\"}]}");
        Path chunk = Files.writeString(
                tmp.resolve("chunk.json"),
                "{\"rationale\":\"training\",\"chunks\":[{\"name\":\"topic\",\"body\":{\"text\":\"a topic\"}}]}");
        String file = "users/trainee/overview.md";
        expect(failed, 0, "--version");
        expect(failed, 0, "--help");
        expect(failed, 3, "status", "--root", r, "--key-file", k);
        try (Daemon d = Daemon.start(cfg, false)) {
            expect(failed, 0, "ping", "--root", r, "--key-file", k);
            expect(failed, 0, "write", "--file", decl.toString(), "--root", r, "--key-file", k);
            expect(failed, 0, "declare", "--file", chunk.toString(), "--root", r, "--key-file", k);
            expect(failed, 0, "read", file, "--root", r, "--key-file", k);
            expect(failed, 0, "read", file, "--json", "--root", r, "--key-file", k);
            expect(failed, 0, "search", "trainee", "--root", r, "--key-file", k);
            expect(failed, 0, "scope", "topic", "--json", "--root", r, "--key-file", k);
            expect(failed, 0, "history", file, "--root", r, "--key-file", k);
            expect(failed, 0, "status", "--root", r, "--key-file", k);
        }
        expect(failed, 0, "read", file, "--root", r, "--key-file", k); // no daemon: the root read here
        expect(failed, 0, "lint", "--root", r, "--key-file", k);
        expect(failed, 0, "ledger", "verify", "--root", r, "--key-file", k);
    }

    private static void expect(java.util.List<String> failed, int code, String... args) {
        int got = Main.run(args);
        if (got != code) {
            failed.add(got + " (not " + code + ") from " + String.join(" ", args));
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
