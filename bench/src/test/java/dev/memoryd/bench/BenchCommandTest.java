package dev.memoryd.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code memoryd bench} from its command line, as {@code bin/memoryd bench} runs it. */
class BenchCommandTest {
    @TempDir
    Path tmp;

    record Run(int code, String out, String err) {}

    @Test
    void help_isMemorydsBenchCommand_sayingWhatEachModeMeasures_oneModeALine() {
        Run r = run("bench", "--help");
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().startsWith("Usage: memoryd bench [-hV]"), r.out());
        assertTrue(r.out().contains("Default: 2000"), "defaults shown, as for every command:\n" + r.out());
        for (String mode : BenchCommand.MODES) {
            assertTrue(
                    r.out().lines().anyMatch(l -> l.strip().startsWith(mode + ": ")),
                    mode + " not explained:\n" + r.out());
        }
    }

    @Test
    void unknownMode_isAUsageError_beforeAnyRootOrDaemonIsMade() throws Exception {
        Path root = tmp.resolve("root");
        Run r = run("bench", "--mode", "nosuch", "--root", root.toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(
                r.err()
                        .startsWith(
                                "--mode must be write, slip, context, human, replay, scope, refs, merge, sync, mcp, peer or filesize\n"
                                        + "Usage: memoryd bench"),
                r.err());
        assertFalse(Files.exists(root), "nothing made");
    }

    @Test
    void writeRun_drivesARealDaemon_andPrintsOneJsonLineOfFigures() throws Exception {
        Path root = tmp.resolve("root");
        Run r = run("bench", "--writes", "20", "--warmup", "10", "--verify", "--root", root.toString());
        assertEquals(0, r.code(), r.toString());
        List<String> lines = r.out().lines().toList();
        assertEquals(1, lines.size(), r.out());
        JsonNode out = JsonRpc.MAPPER.readTree(lines.get(0));
        assertEquals(20, out.get("writes").asInt(), r.out());
        assertTrue(out.get("writes_per_s").asDouble() > 0, r.out());
        assertTrue(out.get("p99_ms").asDouble() >= out.get("p50_ms").asDouble(), r.out());
        assertTrue(out.get("daemon_rss_mb").get("started").asDouble() > 0, r.out());
        assertTrue(out.get("write_stats").isObject(), r.out());
        assertTrue(out.get("verify_ok").asBoolean(), r.out());
        // setup, 10 warm-up and 20 measured declarations, each at least one ledger line
        assertTrue(out.get("verify_lines").asLong() >= 31, r.out());
        assertTrue(
                Files.exists(root.resolveSibling("root.daemon.log")),
                "the daemon ran as a child, logging beside the root");
    }

    @Test
    void filesizeRun_comparesASmallAndALargeFile_onTheSameChange() throws Exception {
        Path root = tmp.resolve("root");
        Run r = run(
                "bench",
                "--mode",
                "filesize",
                "--writes",
                "10",
                "--warmup",
                "0",
                "--file-kb",
                "64",
                "--root",
                root.toString());
        assertEquals(0, r.code(), r.toString());
        JsonNode out = JsonRpc.MAPPER.readTree(r.out().lines().toList().get(0));
        assertEquals("filesize", out.get("mode").asText(), r.out());
        long small = out.get("small_bytes").asLong();
        long large = out.get("large_bytes").asLong();
        assertTrue(small > 4_000 && small < 8_000, "the small file is about 5 KB: " + r.out());
        assertTrue(large > 64 * 1024 && large < 72 * 1024, "the large file is the size asked for: " + r.out());
        assertTrue(
                out.get("large_p50_ms").asDouble() > 0
                        && out.get("small_p50_ms").asDouble() > 0,
                r.out());
        assertTrue(out.has("cpu_ratio") && out.has("p50_ratio"), r.out());
    }

    private static Run run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = BenchCommand.run(args);
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
