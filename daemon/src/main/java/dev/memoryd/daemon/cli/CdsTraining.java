package dev.memoryd.daemon.cli;

import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.app.Daemon;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The training run of the class-data sharing archive {@code bin/memoryd} builds next to the jar
 * ({@code java -XX:ArchiveClassesAtExit=memoryd.jsa -cp memoryd.jar ...CdsTraining}): runs the
 * everyday commands, on both sides of the socket, against a throwaway root in a temp directory,
 * so the archive holds the classes they load. With {@value #CLIENT_ONLY}, the training of the
 * JDK's AOT cache ({@code -XX:AOTCacheOutput=memoryd.aot}, JDK 24 and later): the client side
 * alone, the daemon in a child JVM. Prints nothing; touches nothing outside the temp
 * directory, which it removes. Exit 0 when every command ran as expected, 1 otherwise (the
 * launcher then keeps no archive), each unexpected exit named on stderr.
 */
public final class CdsTraining {
    private CdsTraining() {}

    /** Trains on the client side alone: an AOT cache loads every class it holds at each start. */
    static final String CLIENT_ONLY = "--client-only";

    public static void main(String[] args) throws Exception {
        boolean clientOnly = args.length == 1 && args[0].equals(CLIENT_ONLY);
        TrainingRun.exitAfter("memoryd: training run: unexpected exit: ", "memoryd-cds", (tmp, failed) -> {
            if (clientOnly) {
                trainClient(tmp, failed);
            } else {
                train(tmp, failed);
            }
        });
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

    /**
     * The everyday commands against a daemon in a child JVM, which also makes the root: of the
     * daemon's side, nothing loads in this one. For the JDK's AOT cache ({@code -XX:AOTCacheOutput},
     * JDK 24 and later), which loads and links every class it holds at each start, where the
     * class-data archive of {@link #train} maps its classes only as they are asked for.
     */
    private static void trainClient(Path tmp, java.util.List<String> failed) throws Exception {
        Path root = tmp.resolve("memory");
        Path key = tmp.resolve("ledger.key");
        String r = root.toString();
        String k = key.toString();
        if (child("init", "--root", r, "--key-file", k).waitFor() != 0) {
            failed.add("init in a child JVM");
            return;
        }
        Process daemon = child("serve", "--root", r, "--key-file", k);
        try {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
            while (Main.run("ping", "--root", r, "--key-file", k) != 0) {
                if (!daemon.isAlive() || System.nanoTime() > deadline) {
                    failed.add("serve in a child JVM did not answer");
                    return;
                }
                Thread.sleep(100);
            }
            Path decl = Files.writeString(
                    tmp.resolve("decl.json"),
                    "{\"rationale\":\"training\",\"ops\":[{\"op\":\"create_entity\",\"user_id\":\"trainee\","
                            + "\"entity_type\":\"user\",\"entity_id\":\"trainee\",\"title\":\"Trainee\"}]}");
            String file = "users/trainee/overview.md";
            expect(failed, 0, "write", "--file", decl.toString(), "--root", r, "--key-file", k);
            try (dev.memoryd.daemon.client.SocketClient c = Main.connect(MemorydConfig.defaults(root, key))) {
                c.call( // a chunk for scope to find ("declare" is no everyday command)
                        "declare",
                        dev.memoryd.daemon.client.TreeJson.read(
                                "{\"rationale\":\"training\",\"chunks\":[{\"name\":\"topic\",\"body\":{\"text\":\"a topic\"}}]}"));
            }
            expect(failed, 0, "read", file, "--root", r, "--key-file", k);
            expect(failed, 0, "read", file, "--section", "Identity", "--json", "--root", r, "--key-file", k);
            expect(failed, 0, "search", "trainee", "--root", r, "--key-file", k);
            expect(failed, 0, "scope", "topic", "--json", "--root", r, "--key-file", k);
            expect(failed, 0, "history", file, "--root", r, "--key-file", k);
            expect(failed, 0, "ping", "--json", "--root", r, "--key-file", k);
        } finally {
            daemon.destroy(); // SIGTERM: the daemon finishes and removes its socket
            daemon.waitFor();
        }
    }

    /** {@code memoryd args...} in a child JVM of this JVM's binary and class path, its output discarded. */
    private static Process child(String... args) throws IOException {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
        cmd.addAll(java.util.List.of(args));
        return new ProcessBuilder(cmd)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    private static void expect(java.util.List<String> failed, int code, String... args) {
        int got = Main.run(args);
        if (got != code) {
            failed.add(got + " (not " + code + ") from " + String.join(" ", args));
        }
    }
}
