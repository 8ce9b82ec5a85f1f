package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.daemon.events.EventPayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.jcs.Jcs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Checks the lines a root's ledger holds against their typed payloads. */
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

    /**
     * Asserts every line of an op memoryd reads back parses to its typed record (a grammar op's
     * line to its op); returns how many lines that is.
     */
    static int assertTyped(Path root) throws Exception {
        ObjectMapper m = new ObjectMapper();
        int typedLines = 0;
        for (JsonNode e : lines(root, m)) {
            JsonNode p = e.get("payload");
            String op = e.path("op").asText();
            Optional<?> typed = switch (op) {
                case "branch_fork" -> EventPayloads.fork(p);
                case "declare" -> EventPayloads.declare(p);
                case "key_rotate" -> EventPayloads.keyRotate(p);
                case "section_lock" -> EventPayloads.sectionLock(p);
                case "slip_send" -> EventPayloads.slipSend(p);
                case "slip_deliver" -> EventPayloads.slipDeliver(p);
                case "drift_flagged" -> EventPayloads.driftFlagged(p);
                case "drift_resolved" -> EventPayloads.driftResolved(p);
                case "human_edit" -> EventPayloads.humanEdit(p);
                case "proposal_created" -> EventPayloads.proposalCreated(p);
                case "proposal_accepted", "proposal_rejected" -> EventPayloads.proposalClosed(p);
                case "grammar_change" -> EventPayloads.grammarChange(p);
                case "ref_add", "ref_repin", "ref_retire" -> EventPayloads.ref(p);
                case "branch_merge" -> EventPayloads.branchMerge(p);
                case "slice_create" -> EventPayloads.sliceCreate(p);
                case "append_row" -> EventPayloads.appendRow(p);
                case "conversation_append" -> EventPayloads.conversationAppend(p);
                default -> p.has("op") ? EventPayloads.grammarOp(p) : null;
            };
            if (typed != null) {
                assertTrue(typed.isPresent(), "a recorded " + op + " line parses: " + e);
                typedLines++;
            }
        }
        return typedLines;
    }

    private static List<JsonNode> lines(Path root, ObjectMapper m) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.walk(root.resolve("ledger"))) {
            files = s.filter(p -> p.toString().endsWith(".ndjson")).sorted().toList();
        }
        for (Path f : files) {
            for (String line : Files.readAllLines(f)) {
                if (!line.isBlank()) {
                    out.add(m.readTree(line));
                }
            }
        }
        return out;
    }
}
