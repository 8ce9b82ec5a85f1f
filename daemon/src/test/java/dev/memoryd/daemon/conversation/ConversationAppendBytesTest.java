package dev.memoryd.daemon.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.policy.Turn;
import dev.memoryd.jcs.CanonicalValue;
import dev.memoryd.jcs.Jcs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The bytes a {@code conversation.append} writes: the slice file and the RFC 8785 form of its
 * event's payload (which the ledger line holds as it is), for a fixed input, as recorded by the
 * build that canonicalised each turn twice. A change here changes ledger lines and files.
 */
class ConversationAppendBytesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SLICE = "01JGZ0000000000000000000AB";
    private static final Instant NOW = Instant.parse("2026-01-02T03:04:05.678Z");

    private static List<Turn> turns() throws Exception {
        JsonNode arr = JSON.readTree("""
                [{"id":"00000000-0000-4000-8000-000000000001","session_id":"s1","role":"user","phase":"exploration",
                  "salience":0.25,"trajectory_depth":0,"trajectory_sibling_order":0,"trajectory_homogeneity":1,
                  "trajectory_temporal":0.333,"trajectory_complexity":4.5,"created_at":1704067200},
                 {"id":"00000000-0000-4000-8000-000000000002","session_id":"s1","role":"assistant","phase":"synthesis",
                  "salience":0.1,"trajectory_depth":1,"trajectory_sibling_order":2,"trajectory_homogeneity":0.7,
                  "trajectory_temporal":1e-7,"trajectory_complexity":12345.678,"created_at":"2026-01-01T00:00:01Z",
                  "parents":[{"id":"00000000-0000-4000-8000-000000000001","edge_type":"reply"}]},
                 {"id":"00000000-0000-4000-8000-000000000003","session_id":"s1","role":"tool","phase":"debugging",
                  "salience":1,"trajectory_depth":2,"trajectory_sibling_order":0,"trajectory_homogeneity":0,
                  "trajectory_temporal":0.5,"trajectory_complexity":0.1234567891,"created_at":"2026-01-01T00:00:02.5Z",
                  "parents":[{"id":"00000000-0000-4000-8000-000000000002","edge_type":"reply"},
                             {"id":"00000000-0000-4000-8000-000000000001","edge_type":"reference"}]}]
                """);
        List<Turn> out = new ArrayList<>();
        for (int i = 0; i < arr.size(); i++) {
            out.add(Turn.fromJson(arr.get(i), "turns[" + i + "]"));
        }
        return out;
    }

    // Recorded from the build before turns were canonicalised once (each turn's JCS, one per line).
    private static final String GOLDEN_LINES =
            "{\"created_at\":1704067200,\"id\":\"00000000-0000-4000-8000-000000000001\",\"parents\":[],\"phase\":\"exploration\",\"role\":\"user\",\"salience\":0.25,\"session_id\":\"s1\",\"trajectory_complexity\":4.5,\"trajectory_depth\":0,\"trajectory_homogeneity\":1,\"trajectory_sibling_order\":0,\"trajectory_temporal\":0.333}\n"
                    + "{\"created_at\":\"2026-01-01T00:00:01Z\",\"id\":\"00000000-0000-4000-8000-000000000002\",\"parents\":[{\"edge_type\":\"reply\",\"id\":\"00000000-0000-4000-8000-000000000001\"}],\"phase\":\"synthesis\",\"role\":\"assistant\",\"salience\":0.1,\"session_id\":\"s1\",\"trajectory_complexity\":12345.678,\"trajectory_depth\":1,\"trajectory_homogeneity\":0.7,\"trajectory_sibling_order\":2,\"trajectory_temporal\":1e-7}\n"
                    + "{\"created_at\":\"2026-01-01T00:00:02.500Z\",\"id\":\"00000000-0000-4000-8000-000000000003\",\"parents\":[{\"edge_type\":\"reply\",\"id\":\"00000000-0000-4000-8000-000000000002\"},{\"edge_type\":\"reference\",\"id\":\"00000000-0000-4000-8000-000000000001\"}],\"phase\":\"debugging\",\"role\":\"tool\",\"salience\":1,\"session_id\":\"s1\",\"trajectory_complexity\":0.1234567891,\"trajectory_depth\":2,\"trajectory_homogeneity\":0,\"trajectory_sibling_order\":0,\"trajectory_temporal\":0.5}\n";

    private static final String FILE = "---\nslice:\n  v: \"1\"\n  id: 01JGZ0000000000000000000AB\n  kind: context\n"
            + "  title: \"Conversation s1\"\n  summary: \"Turns of session s1, one per line, recorded by memoryd.\"\n"
            + "  body:\n    type: conversation\n    conversation:\n      session_id: \"s1\"\n      format: messages\n"
            + "  meta:\n    created_at: \"2026-01-02T03:04:05.678Z\"\n---\n"
            + GOLDEN_LINES;

    private static final String GOLDEN_PAYLOAD =
            "{\"new_slice\":true,\"session_id\":\"s1\",\"slice_id\":\"01JGZ0000000000000000000AB\",\"turns\":[{\"created_at\":1"
                    + "704067200,\"id\":\"00000000-0000-4000-8000-000000000001\",\"parents\":[],\"phase\":\"exploration\",\"role\":\"use"
                    + "r\",\"salience\":0.25,\"session_id\":\"s1\",\"trajectory_complexity\":4.5,\"trajectory_depth\":0,\"trajectory_ho"
                    + "mogeneity\":1,\"trajectory_sibling_order\":0,\"trajectory_temporal\":0.333},{\"created_at\":\"2026-01-01T00:"
                    + "00:01Z\",\"id\":\"00000000-0000-4000-8000-000000000002\",\"parents\":[{\"edge_type\":\"reply\",\"id\":\"00000000-0"
                    + "000-4000-8000-000000000001\"}],\"phase\":\"synthesis\",\"role\":\"assistant\",\"salience\":0.1,\"session_id\":\"s1"
                    + "\",\"trajectory_complexity\":12345.678,\"trajectory_depth\":1,\"trajectory_homogeneity\":0.7,\"trajectory_si"
                    + "bling_order\":2,\"trajectory_temporal\":1e-7},{\"created_at\":\"2026-01-01T00:00:02.500Z\",\"id\":\"00000000-0"
                    + "000-4000-8000-000000000003\",\"parents\":[{\"edge_type\":\"reply\",\"id\":\"00000000-0000-4000-8000-0000000000"
                    + "02\"},{\"edge_type\":\"reference\",\"id\":\"00000000-0000-4000-8000-000000000001\"}],\"phase\":\"debugging\",\"rol"
                    + "e\":\"tool\",\"salience\":1,\"session_id\":\"s1\",\"trajectory_complexity\":0.1234567891,\"trajectory_depth\":2,\""
                    + "trajectory_homogeneity\":0,\"trajectory_sibling_order\":0,\"trajectory_temporal\":0.5}]}";

    private static Mutation.Done apply(Optional<String> old, boolean fresh) throws Exception {
        ConversationStore.Append a = ConversationStore.Append.of("s1", SLICE, fresh, turns(), id -> false);
        return assertInstanceOf(Mutation.Done.class, a.apply(p -> old, NOW));
    }

    @Test
    void writesTheRecordedFileAndLedgerPayloadBytes() throws Exception {
        Mutation.Done d = apply(Optional.empty(), true);
        assertEquals(FILE, d.newContents().get(RepoPath.of(".slices/" + SLICE + ".slice")));
        assertEquals(GOLDEN_PAYLOAD, Jcs.canonicalize(d.events().get(0).payload()));
    }

    @Test
    void appendingToAFileAddsTheSameLinesAfterItsText() throws Exception {
        Mutation.Done d = apply(Optional.of(FILE), false);
        assertEquals(FILE + GOLDEN_LINES, d.newContents().get(RepoPath.of(".slices/" + SLICE + ".slice")));
    }

    @Test
    void eachTurnOfThePayloadIsTheCanonicalValueOfItsLine() throws Exception {
        Mutation.Done d = apply(Optional.empty(), true);
        JsonNode stored = d.events().get(0).payload().get("turns");
        String[] lines = GOLDEN_LINES.split("\n");
        assertEquals(lines.length, stored.size());
        for (int i = 0; i < lines.length; i++) {
            CanonicalValue c = CanonicalValue.in(stored.get(i));
            assertEquals(lines[i], c.text());
            assertEquals(lines[i], Jcs.canonicalize(c.tree()));
            assertSame(c.tree(), CanonicalValue.unwrap(stored.get(i)));
        }
        assertEquals(turns(), ConversationStore.parseStored(stored));
    }
}
