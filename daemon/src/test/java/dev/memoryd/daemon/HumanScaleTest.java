package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Humans at scale against a running daemon with its watcher: a burst of 1,000 new files, and a
 * ledger of 10,000+ mixed agent and human events that replays from empty byte for byte.
 */
class HumanScaleTest {
    @TempDir
    Path tmp;

    TestRoot root;

    @AfterEach
    void close() {
        if (root != null) {
            root.close();
        }
    }

    private long lines() throws Exception {
        return root.call("ledger.verify", null).get("result").get("lines").asLong();
    }

    private void awaitLines(long n, long timeoutMs) throws Exception {
        long end = System.currentTimeMillis() + timeoutMs;
        while (lines() < n) {
            if (System.currentTimeMillis() > end) {
                throw new AssertionError("timed out at " + lines() + " of " + n + " ledger lines");
            }
            Thread.sleep(100);
        }
    }

    @Test
    void burstOf1000NewFiles_endsWithNoMissedChange() throws Exception {
        root = new TestRoot(tmp)
                .configure(c -> c.withWatch(Duration.ofMillis(300), Duration.ofSeconds(60)))
                .serveWatching();
        awaitLines(TestRoot.IMPORT_LINES, 20_000);
        String notes = root.file("users/sam/parts/young-one/notes.md");
        long before = lines();
        int n = Integer.getInteger("memoryd.burst", 1000);
        for (int i = 0; i < n; i++) {
            String id = String.format("burst-%04d", i);
            Path dir = root.dir.resolve("users/sam/parts/" + id);
            Files.createDirectories(dir);
            Files.writeString(
                    dir.resolve("notes.md"),
                    notes.replace("young-one", id)
                            .replace("Young One", "Burst " + i)
                            .replace("01JC7X00000000000000000006", String.format("01JC8B%020d", i)));
        }
        awaitLines(before + n, 120_000);
        Thread.sleep(1000);
        assertEquals(before + n, lines(), "one event per new file, none twice");
        JsonNode replay = root.call("replay", "{\"verify\":true}").get("result");
        assertTrue(replay.get("ok").asBoolean(), "every file on disk is what the ledger replays to: " + replay);
        assertEquals(0, root.call("drift.list", null).get("result").get("items").size());
    }

    @Test
    void tenThousandMixedEvents_replayFromEmpty_byteForByte() throws Exception {
        root = new TestRoot(tmp).serve();
        String[] files = {
            "users/sam/parts/inner-critic/notes.md",
            "users/sam/parts/young-one/notes.md",
            "users/sam/notes.md",
            "users/sam/relationships/critic-protects-young-one/notes.md"
        };
        int decls = Integer.getInteger("memoryd.mixedDecls", 1000);
        int human = 0;
        for (int d = 0; d < decls; d++) {
            StringBuilder ops = new StringBuilder();
            for (int k = 0; k < 10; k++) {
                ops.append(k == 0 ? "" : ",")
                        .append("{\"op\":\"append_item\",\"path\":\"")
                        .append(files[(d + k) % files.length])
                        .append("\",\"section\":\"Inbox\",\"item\":\"note ")
                        .append(d)
                        .append('.')
                        .append(k)
                        .append("\"}");
            }
            JsonNode r = root.call("write", "{\"rationale\":\"mixed\",\"ops\":[" + ops + "]}");
            assertTrue(r.has("result"), r.toString());
            if (d % 25 == 0) {
                String f = files[d % files.length];
                String t = root.file(f);
                String marker = "<!-- @anchor: research v1 -->\n";
                Files.writeString(root.dir.resolve(f), t.replace(marker, marker + "\nA human thought " + d + ".\n"));
                human++;
            }
        }
        root.call("capture", null);
        JsonNode v = root.call("ledger.verify", null).get("result");
        assertTrue(v.get("ok").asBoolean());
        assertTrue(v.get("lines").asLong() >= TestRoot.IMPORT_LINES + 10L * decls + human, v.toString());
        JsonNode replay = root.call("replay", "{\"verify\":true}").get("result");
        assertTrue(replay.get("ok").asBoolean(), replay.toString());
        assertTrue(replay.get("events").asLong() >= 10_000 || decls < 1000, replay.toString());
    }
}
