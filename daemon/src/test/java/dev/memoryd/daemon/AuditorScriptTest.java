package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the auditor's script exactly as docs/AUDITOR.md prints it against a ledger the daemon
 * wrote (with a key rotation in it): it must pass, and must fail once a line is tampered with.
 * Keeps the recipe's script true.
 */
class AuditorScriptTest {
    @TempDir
    Path tmp;

    @Test
    void documentedScript_verifiesDaemonLedger_andCatchesTampering() throws Exception {
        Path recipe = Path.of("..", "docs", "AUDITOR.md");
        Matcher m = Pattern.compile("```python\\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(recipe));
        assertTrue(m.find(), "docs/AUDITOR.md has no python recipe block");
        Path script = tmp.resolve("audit.py");
        Files.writeString(script, m.group(1));

        try (TestRoot root = new TestRoot(tmp).serve()) {
            for (int i = 0; i < 40; i++) {
                JsonNode r = root.call(
                        "write",
                        "{\"rationale\":\"audit\",\"ops\":[{\"op\":\"append_item\","
                                + "\"path\":\"users/sam/overview.md\",\"section\":\"Active Themes\",\"item\":\"theme "
                                + i + "\"}]}");
                assertTrue(r.has("result"), r.toString());
            }
            assertTrue(root.call("ledger.rotate_key", null).has("result"));
            for (int i = 40; i < 45; i++) {
                JsonNode r = root.call(
                        "write",
                        "{\"rationale\":\"audit\",\"ops\":[{\"op\":\"append_item\","
                                + "\"path\":\"users/sam/overview.md\",\"section\":\"Active Themes\",\"item\":\"theme "
                                + i + "\"}]}");
                assertTrue(r.has("result"), r.toString());
            }
            root.daemon.close();
            assertEquals(0, run(script, root), "clean ledger, with a key rotation in it, must verify");

            Path seg;
            try (Stream<Path> s = Files.walk(root.cfg.ledgerDir())) {
                seg = s.filter(p -> p.toString().endsWith(".ndjson"))
                        .sorted()
                        .findFirst()
                        .orElseThrow();
            }
            List<String> lines = Files.readAllLines(seg, StandardCharsets.UTF_8);
            int victim = TestRoot.IMPORT_LINES + 2;
            String forged = lines.get(victim).replace("\"rationale\":\"audit\"", "\"rationale\":\"forged\"");
            assertNotEquals(lines.get(victim), forged, "the test must really change a line");
            lines.set(victim, forged);
            Files.write(seg, lines, StandardCharsets.UTF_8);
            assertEquals(1, run(script, root), "tampered ledger must fail");
        }
    }

    private static int run(Path script, TestRoot root) throws Exception {
        Process p = new ProcessBuilder(
                        "python3",
                        script.toString(),
                        root.cfg.keyFile().toString(),
                        root.cfg.ledgerDir().toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        System.out.println(out);
        return p.exitValue();
    }
}
