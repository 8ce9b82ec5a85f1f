package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@code memoryd conversation append} with more turns than one request carries: sent in order in
 * as many requests as they need, and what is recorded said exactly when one of them is refused.
 */
class ConversationAppendCliTest extends ServedRootTest {
    /** A chain of {@code n} turns, each a reply to the one before, so a later request needs an earlier one's turns. */
    private static ArrayNode chain(int n) {
        ArrayNode turns = JsonRpc.MAPPER.createArrayNode();
        for (int i = 0; i < n; i++) {
            ObjectNode t = turns.addObject()
                    .put("id", id(i))
                    .put("role", i % 2 == 0 ? "user" : "assistant")
                    .put("phase", "planning")
                    .put("salience", 0.5)
                    .put("trajectory_depth", i)
                    .put("trajectory_sibling_order", 0)
                    .put("trajectory_homogeneity", 0.5)
                    .put("trajectory_temporal", 0.5)
                    .put("trajectory_complexity", 1.0)
                    .put("created_at", 1_704_067_200L + i);
            if (i > 0) {
                t.putArray("parents").addObject().put("id", id(i - 1)).put("edge_type", "reply");
            }
        }
        return turns;
    }

    private static String id(int i) {
        return String.format("00000000-0000-4000-8000-%012d", i);
    }

    private Path file(ArrayNode turns) throws Exception {
        Path f = tmp.resolve("turns.json");
        Files.writeString(f, JsonRpc.MAPPER.writeValueAsString(turns));
        return f;
    }

    private int commitsSince(String head) throws Exception {
        return Integer.parseInt(root.git("rev-list", "--count", head + "..HEAD").strip());
    }

    /** Every id the commits since {@code head} added to the repository, in any file. */
    private String addedSince(String head) throws Exception {
        return root.git("diff", head, "HEAD");
    }

    /** The command answered "too_large: request line exceeds 1048576 bytes" and appended nothing. */
    @Test
    void turnsMoreThanOneRequestCarries_areAppendedInOrderInSeveralRequests_aCommitEach() throws Exception {
        String head = root.git("rev-parse", "HEAD").strip();
        ArrayNode turns = chain(7_000); // about 2.3 MiB as JSON: at least three requests
        Path f = file(turns);
        assertTrue(Files.size(f) > 2 * (1 << 20), "the input is over two requests' limit: " + Files.size(f));

        Cli.Run r = Cli.run(root.cliArgs("conversation", "append", "s1", "--file", f.toString()));

        assertEquals(0, r.code(), r.toString());
        String[] lines = r.out().strip().split("\n");
        int requests = lines.length - 1;
        assertTrue(requests >= 3, r.out());
        assertEquals("appended 7000 turns to s1 in " + requests + " requests, a commit each", lines[requests]);
        int appended = Arrays.stream(lines, 0, requests)
                .peek(l -> assertTrue(l.matches("appended \\d+ turn\\(s\\) to s1 in commit [0-9a-f]{40} \\(.+\\)"), l))
                .mapToInt(l -> Integer.parseInt(l.split(" ")[1]))
                .sum();
        assertEquals(7_000, appended, r.out());
        assertEquals(requests, commitsSince(head));
        String added = addedSince(head);
        for (int i = 0; i < turns.size(); i++) {
            assertTrue(added.contains(id(i)), "turn " + i + " recorded");
        }
        // each turn once: appending the last again is refused as already recorded
        ArrayNode last = JsonRpc.MAPPER.createArrayNode().add(turns.get(turns.size() - 1));
        Cli.Run again = Cli.run(root.cliArgs(
                "conversation", "append", "s1", "--file", file(last).toString()));
        assertEquals(1, again.code(), again.toString());
        assertTrue(again.err().contains("is already recorded"), again.toString());
    }

    @Test
    void aTurnNoRequestCanCarry_isRefusedBeforeAnythingIsSent() throws Exception {
        String head = root.git("rev-parse", "HEAD").strip();
        ArrayNode turns = chain(3);
        ((ObjectNode) turns.get(1)).put("note", "x".repeat(1 << 20));

        Cli.Run r = Cli.run(root.cliArgs(
                "conversation", "append", "s1", "--file", file(turns).toString()));

        assertEquals(2, r.code(), r.toString());
        assertTrue(
                r.err().contains("turns[1] is 1048")
                        && r.err().contains("bytes as JSON, more than one request carries; nothing was appended"),
                r.err());
        assertEquals(0, commitsSince(head));
    }

    @Test
    void aRequestRefusedAfterOthersWereRecorded_saysWhichTurnsAreRecordedAndWhichAreNot() throws Exception {
        String head = root.git("rev-parse", "HEAD").strip();
        ArrayNode turns = chain(4_000);
        int bad = 3_500; // in the second request: its parent is a turn no one recorded
        ((ObjectNode) turns.get(bad).get("parents").get(0)).put("id", "00000000-0000-4000-8000-999999999999");

        Cli.Run r = Cli.run(root.cliArgs(
                "conversation", "append", "s1", "--file", file(turns).toString()));

        assertEquals(1, r.code(), r.toString());
        assertEquals(1, commitsSince(head), r.toString());
        int first = Integer.parseInt(r.out().strip().split(" ")[1]);
        assertTrue(first > 0 && first < bad, r.out());
        assertTrue(
                r.err()
                        .contains("turns[0.." + (first - 1) + "] are recorded (the parts above); turns[" + first
                                + "..3999] are not"),
                r.err());
        String added = addedSince(head);
        assertTrue(added.contains(id(first - 1)), "the first request's last turn");
        assertTrue(!added.contains(id(first)), "nothing of the refused request");
    }
}
