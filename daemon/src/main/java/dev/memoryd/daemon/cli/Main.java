package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.client.TreeJson;
import dev.memoryd.ledger.KeyRing;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * The {@code memoryd} command line: parses flags, calls one service API, maps the outcome to an
 * exit code (0 ok, 1 the check found problems or the daemon refused, 2 usage error) and prints
 * errors to stderr in one line.
 */
public final class Main {
    static final int OK = 0;
    static final int PROBLEMS = 1;
    static final int USAGE = 2;

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /**
     * Runs one command line; the exit code. The everyday commands {@link FastArgs} parses run
     * without picocli (and without loading it); anything else goes to picocli's tree
     * ({@link RootCommand#commandLine}). No method here names a picocli type: the JVM's launcher
     * looks at every public method of the main class, and would load picocli for it.
     */
    public static int run(String... args) {
        Callable<Integer> fast = FastArgs.parse(args);
        if (fast == null) {
            return RootCommand.execute(args);
        }
        try {
            return fast.call();
        } catch (Exception ex) {
            return failed(ex, System.err::println); // as picocli's handler (RootCommand.handlingErrors)
        }
    }

    /** Says what went wrong on {@code err} in one line; the exit code. */
    static int failed(Exception ex, Consumer<String> err) {
        err.accept("memoryd: " + oneLine(ex));
        // Naming the wrong key (or none) is a usage error: nothing was looked at, nothing changed.
        return ex instanceof KeyRing.MissingKeyFile || ex instanceof dev.memoryd.ledger.KeyCheck.WrongKeyFile
                ? USAGE
                : PROBLEMS;
    }

    static String oneLine(Throwable t) {
        String m = t.getMessage() == null ? t.toString() : t.getMessage();
        return m.replace('\n', ' ');
    }

    /** Connects to the daemon or explains exactly how to start one. */
    static SocketClient connect(MemorydConfig cfg) throws IOException {
        try {
            return SocketClient.connect(cfg.socket(), SocketClient.commandTimeout());
        } catch (ConnectException | NoSuchFileException e) {
            throw new IOException(
                    "no memoryd is serving " + cfg.root() + " (no socket at " + cfg.socket()
                            + "); start one with: bin/memoryd serve --root " + cfg.root(),
                    e);
        } catch (IOException e) {
            if (!Files.exists(cfg.socket())) {
                throw new IOException(
                        "no memoryd is serving " + cfg.root() + "; start one with: bin/memoryd serve --root "
                                + cfg.root(),
                        e);
            }
            throw e;
        }
    }

    /** Prints a reply's result indented (exit 0) or its error in one line (exit 1). */
    static int print(JsonNode reply) throws JsonProcessingException {
        return print(reply, false);
    }

    /** Prints a reply's result, indented or as one line (exit 0), or its error in one line (exit 1). */
    static int print(JsonNode reply, boolean oneLine) throws JsonProcessingException {
        if (reply == null) {
            System.err.println("memoryd: the daemon closed the connection without a reply");
            return PROBLEMS;
        }
        if (reply.has("error")) {
            JsonNode e = reply.get("error");
            System.err.println("memoryd: " + e.path("data").path("reason").asText("error") + ": "
                    + e.path("message").asText());
            return PROBLEMS;
        }
        System.out.println(oneLine ? TreeJson.write(reply.get("result")) : TreeJson.pretty(reply.get("result")));
        return OK;
    }

    static int fail(Failure f) {
        System.err.println("memoryd: " + f.reason().wireName() + ": " + f.message());
        return PROBLEMS;
    }
}
