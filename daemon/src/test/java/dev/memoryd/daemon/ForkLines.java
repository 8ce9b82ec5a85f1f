package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.jcs.Jcs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Checks the {@code branch_fork} lines a root's ledger holds against their typed payloads. */
final class ForkLines {
    private ForkLines() {}

    /** Asserts every fork line's payload re-serialises to its recorded canonical bytes; returns how many there are. */
    static int assertRoundTrip(Path root) throws Exception {
        ObjectMapper m = new ObjectMapper();
        int forks = 0;
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
                if (e.path("op").asText().equals("branch_fork")) {
                    JsonNode recorded = e.get("payload");
                    assertEquals(
                            Jcs.canonicalize(recorded),
                            Jcs.canonicalize(
                                    EventPayloads.fork(recorded).orElseThrow().toJson()),
                            f + ": " + line);
                    forks++;
                }
            }
        }
        return forks;
    }
}
