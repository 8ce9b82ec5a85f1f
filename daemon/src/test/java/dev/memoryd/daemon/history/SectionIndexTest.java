package dev.memoryd.daemon.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.EventDraft;
import dev.memoryd.ledger.IdGenerator;
import dev.memoryd.ledger.KeyRing;
import dev.memoryd.ledger.Ledger;
import dev.memoryd.ledger.LedgerOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The section index over a real chain with small segments: what it answers, and a chain cut back under it. */
class SectionIndexTest {
    private static final String FILE = "users/sam/parts/p/profile.md";

    @TempDir
    Path tmp;

    private final IdGenerator ids =
            new IdGenerator(Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC), new Random(3));
    private Chain chain;
    private SectionIndex index;

    private void open() {
        byte[] master = new byte[32];
        Ledger ledger = Ledger.open(tmp.resolve("ledger"), KeyRing.of(Map.of(1, master), 1), new LedgerOptions(4, ids));
        chain = ledger.chain(BranchName.of("main"));
        index = new SectionIndex(chain::head, chain::read, 4);
    }

    private EventDraft op(String anchor, String rationale) {
        return new EventDraft(
                ids.next().value(),
                "2026-01-02T03:04:05Z",
                "main",
                "agent",
                "sam",
                "part",
                "p",
                FILE,
                "replace_section",
                anchor,
                null,
                null,
                null,
                rationale,
                List.of(),
                null,
                null);
    }

    private EventDraft wholeFile(String rationale, String... changed) {
        ObjectNode p = JsonNodeFactory.instance.objectNode();
        p.put("whole_file", true);
        p.put("text", "# P\n"); // every whole-file edit the writer records carries the file's new text
        p.putArray("changed")
                .addAll(List.of(changed).stream()
                        .map(JsonNodeFactory.instance::textNode)
                        .toList());
        return new EventDraft(
                ids.next().value(),
                "2026-01-02T03:04:05Z",
                "main",
                "human:Sam",
                "sam",
                "part",
                "p",
                FILE,
                "human_edit",
                null,
                null,
                null,
                p,
                rationale,
                List.of(),
                null,
                null);
    }

    private static List<String> rationales(List<Event> events) {
        List<String> out = new ArrayList<>();
        events.forEach(e -> out.add(e.rationale()));
        return out;
    }

    @Test
    void lastChangesAndHistory_countWholeFileEdits_andPageNewestFirstAcrossSegments() {
        open();
        chain.append(List.of(wholeFile("import", "role", "needs")));
        for (int i = 0; i < 9; i++) {
            chain.append(List.of(op("role", "role " + i), op("needs", "needs " + i)));
        }
        Map<String, Event> last = index.lastChanges(FILE);
        assertEquals("role 8", last.get("role").rationale());
        assertEquals("needs 8", last.get("needs").rationale());
        assertNull(index.lastChanges(FILE).get("identity"));

        SectionIndex.Page newest = index.history(FILE, "role", 0, 3);
        assertEquals(10, newest.total());
        assertEquals(List.of("role 8", "role 7", "role 6"), rationales(newest.events()));
        SectionIndex.Page oldest = index.history(FILE, "role", 8, 5);
        assertEquals(List.of("role 0", "import"), rationales(oldest.events()));
        assertEquals(0, index.history(FILE, "role", 10, 5).events().size());
        assertEquals(0, index.history("users/sam/none.md", "role", 0, 5).total());
    }

    @Test
    void aChainCutBackAndRegrown_isIndexedAgain_notKeptFromTheLinesCutOff() {
        open();
        chain.append(List.of(op("role", "kept")));
        chain.append(List.of(op("role", "cut 1"), op("needs", "cut 2")));
        assertEquals("cut 1", index.lastChanges(FILE).get("role").rationale());
        chain.truncateAfter(1);
        chain.append(List.of(op("identity", "new 1"), op("identity", "new 2"))); // same seqs as the lines cut off
        Map<String, Event> last = index.lastChanges(FILE);
        assertEquals("kept", last.get("role").rationale());
        assertNull(last.get("needs"));
        assertEquals("new 2", last.get("identity").rationale());
        assertEquals(1, index.history(FILE, "role", 0, 10).total());
    }
}
