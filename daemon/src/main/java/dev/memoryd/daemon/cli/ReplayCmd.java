package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.ReplayCheckRoot;
import dev.memoryd.daemon.ServingRoot;
import dev.memoryd.daemon.app.Daemon;
import dev.memoryd.daemon.client.SocketClient;
import dev.memoryd.daemon.rpc.Dispatcher;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code memoryd replay}: through the serving daemon, or, when none serves the root, in this
 * process. {@code --verify} is a check: it opens the root without lock, recovery or writer
 * ({@link Memoryd#openForCheck}, a {@link ReplayCheckRoot}) and changes nothing. {@code --onto-latest} writes, so it runs
 * under the root's lock, as a daemon would.
 */
@Command(
        name = "replay",
        description = {
            MethodSummaries.REPLAY,
            "Rebuild memory files from the ledger: --verify compares with the working tree;"
                    + " --onto-latest brings files restored from a snapshot up to date."
        })
final class ReplayCmd extends Printing implements Callable<Integer> {
    @picocli.CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
    Mode mode;

    static final class Mode {
        @Option(
                names = "--verify",
                description =
                        "rebuild from empty and compare byte for byte; exit 1 naming each file and section that differs")
        boolean verify;

        @Option(
                names = "--onto-latest",
                description =
                        "apply ledger events newer than each restored file's snapshot; exit 1 when a file halts (it goes to the drift queue)")
        boolean ontoLatest;
    }

    /** {@code replay --onto-latest} in this process, under the root's lock, when no daemon serves the root. */
    private static JsonNode ontoLatest(ServingRoot m) throws InterruptedException, ExecutionException, IOException {
        JsonNode r = Dispatcher.ontoJson(m.replayOntoLatest().get());
        m.captureNow(java.util.List.of()).get(); // what it queued is recorded before this process exits
        return r;
    }

    /** {@code replay --verify} in this process, changing nothing, when no daemon serves the root. */
    private static JsonNode verify(ReplayCheckRoot m, boolean tty) throws IOException {
        JsonNode r;
        try {
            r = Dispatcher.replayJson(m.verify(n -> {
                if (tty) {
                    System.err.print("\rreplayed " + n + " events");
                }
            }));
        } catch (IOException | RuntimeException e) {
            throw new IOException("replay failed: " + e.getMessage(), e);
        }
        if (tty) {
            System.err.println();
        }
        return r;
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        boolean tty = System.console() != null;
        JsonNode result = replay(mode.ontoLatest ? "onto_latest" : "verify", tty);
        if (result == null) {
            return Main.PROBLEMS; // the daemon refused; print() said why
        }
        if (out.on()) {
            JsonOutput.line(result);
        } else if (mode.ontoLatest) {
            printOnto(result);
        } else {
            printVerify(result);
        }
        return result.get("ok").asBoolean() ? Main.OK : Main.PROBLEMS;
    }

    /** Through the serving daemon, or in this process when none serves it (under the root's lock to write). */
    private JsonNode replay(String flag, boolean tty) throws IOException, InterruptedException {
        if (Files.exists(config().socket())) {
            if (tty) {
                System.err.println("replaying the ledger in the daemon ...");
            }
            try (SocketClient c = Main.connect(config())) {
                JsonNode reply =
                        c.call("replay", JsonRpc.MAPPER.createObjectNode().put(flag, true));
                if (reply.has("error")) {
                    Main.print(reply);
                    return null;
                }
                return reply.get("result");
            }
        }
        if (!mode.ontoLatest) {
            try (ReplayCheckRoot m = Memoryd.openForCheck(config())) {
                return verify(m, tty);
            }
        }
        try (Daemon d = Daemon.start(config(), false)) {
            return ontoLatest(d.service());
        } catch (ExecutionException e) {
            throw new IOException("replay failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    private static void printVerify(JsonNode result) {
        for (JsonNode h : result.get("halted")) {
            System.out.println("HALTED " + h.get("path").asText() + " at ledger line "
                    + h.get("seq").asLong() + ": " + h.get("reason").asText());
        }
        for (JsonNode x : result.get("differences")) {
            StringBuilder secs = new StringBuilder();
            x.path("sections")
                    .forEach(s -> secs.append(secs.length() == 0 ? "" : ", ").append(s.asText()));
            System.out.println("DIFFERS " + x.get("path").asText() + " ("
                    + x.get("kind").asText() + ")" + (secs.length() > 0 ? " sections: " + secs : ""));
        }
        System.out.println((result.get("ok").asBoolean() ? "replay ok: " : "replay found differences: ")
                + result.get("events").asLong() + " events, "
                + result.get("files").asInt() + " files, "
                + result.get("millis").asLong() + " ms");
    }

    private static void printOnto(JsonNode result) {
        for (JsonNode f : result.get("files")) {
            System.out.println(f.get("outcome").asText().toUpperCase(java.util.Locale.ROOT) + " "
                    + f.get("path").asText()
                    + (f.get("applied").asInt() > 0 ? " (" + f.get("applied").asInt() + " events)" : "")
                    + (f.has("reanchored")
                            ? " re-anchored " + f.get("reanchored").asText()
                            : "")
                    + (f.has("halt") ? ": " + f.get("halt").asText() + "; see 'memoryd drift list'" : ""));
        }
        if (result.get("files").isEmpty()) {
            System.out.println("every memory file is at its recorded text; nothing to do");
        }
    }
}
