package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/memoryd} under the C or POSIX locale (cron, a bare container): Java decodes the
 * arguments with the locale's charset, ASCII there, so a name given on the command line arrived
 * as other text ("Zoë" as "Zo??"). The launcher runs the JVM with a UTF-8 character type then.
 */
class LauncherLocaleTest {
    @TempDir
    Path tmp;

    @Test
    void underTheCLocale_anArgumentWithAnAccent_arrivesAsTyped() throws Exception {
        Path home = tmp.resolve("checkout");
        LauncherArchiveTest.layout(home);
        TestRoot root = new TestRoot(tmp);
        try {
            for (Map<String, String> locale :
                    List.of(Map.of("LANG", "C"), Map.of("LC_ALL", "POSIX"), Map.<String, String>of())) {
                ProcessBuilder pb = new ProcessBuilder(
                        home.resolve("bin/memoryd").toString(),
                        "read",
                        "users/sam/overview.md",
                        "--section",
                        "Zoë",
                        "--root",
                        root.dir.toString(),
                        "--key-file",
                        root.cfg.keyFile().toString());
                pb.environment().keySet().removeIf(k -> k.equals("LANG") || k.startsWith("LC_"));
                pb.environment().putAll(locale);
                pb.environment().put("MEMORYD_NO_CDS", "1");
                pb.environment().remove("MEMORYD_JAVA_OPTS");
                pb.environment()
                        .put(
                                "PATH",
                                Path.of(System.getProperty("java.home"), "bin")
                                        + File.pathSeparator
                                        + System.getenv("PATH"));
                Path err = Files.createTempFile(tmp, "err", ".txt");
                Process p = pb.redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(err.toFile())
                        .start();
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the launcher did not finish");
                String stderr = Files.readString(err, StandardCharsets.UTF_8);
                assertEquals(1, p.exitValue(), locale + ": " + stderr);
                assertTrue(stderr.contains("no section 'Zoë' in users/sam/overview.md"), locale + ": " + stderr);
            }
        } finally {
            root.close();
        }
    }
}
