package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.daemon.events.EventPayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.jcs.Jcs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Checks the lines a root's ledger holds against their typed payloads ({@code branch_fork}, {@code declare}). */
final class PayloadLines {
    private PayloadLines() {}

    /** Asserts every typed line's payload re-serialises to its recorded canonical bytes; returns how many there are. */
    static int assertRoundTrip(Path root) throws Exception {
        ObjectMapper m = new ObjectMapper();
        int typedLines = 0;
        List<Path> files;
        try (Stream<Path> s = Files.walk(root.resolve("ledger"))) {
            files = s.filter(p -> p.toString().endsWith(".ndjson")).sorted().toList();
        }
        for (Path f : files) {
            for (String line : Files.readAllLines(f)) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode e = m.readTree(line);
                JsonNode recorded = e.get("payload");
                Optional<? extends EventPayload> typed = switch (e.path("op").asText()) {
                    case "branch_fork" -> EventPayloads.fork(recorded);
                    case "declare" -> EventPayloads.declare(recorded);
                    default -> null;
                };
                if (typed != null) {
                    assertEquals(
                            Jcs.canonicalize(recorded),
                            Jcs.canonicalize(typed.orElseThrow().toJson()),
                            f + ": " + line);
                    typedLines++;
                }
            }
        }
        return typedLines;
    }
}
