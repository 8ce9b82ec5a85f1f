package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.client.TreeJson;
import java.io.IOException;
import picocli.CommandLine.Option;

/**
 * The {@code --json} option of every command that prints a result, and that printing. With it, a
 * result is printed as one line of JSON (for commands sent to a daemon, the daemon's result as it
 * sent it), so a script reads one value a line; without it, a command prints its human-readable
 * form, which for commands that have none is the JSON indented. Errors go to stderr in one line
 * either way.
 */
final class JsonOutput {
    @Option(names = "--json", description = "print the result as one line of JSON instead of the human-readable form")
    boolean on;

    /** Whether {@code --json} was given. */
    boolean on() {
        return on;
    }

    /** Sends one request to the daemon serving {@code cfg} and {@linkplain #print prints} the reply. */
    int call(MemorydConfig cfg, String method, JsonNode params) throws IOException {
        try (SocketClient c = Main.connect(cfg)) {
            return print(c.call(method, params));
        }
    }

    /** Prints a reply's result (exit 0), or its error on stderr in one line (exit 1). */
    int print(JsonNode reply) throws JsonProcessingException {
        return Main.print(reply, on);
    }

    /** Prints {@code result} as one line of JSON: the {@code --json} form of a result made in this process. */
    static void line(JsonNode result) throws JsonProcessingException {
        System.out.println(TreeJson.write(result));
    }
}
