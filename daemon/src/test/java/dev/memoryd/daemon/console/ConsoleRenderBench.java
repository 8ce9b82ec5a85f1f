package dev.memoryd.daemon.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long each page takes on a large root: run with {@code -Dmemoryd.console.bench=N} (N ledger
 * events in all) and {@code -Dmemoryd.console.bench.files=F} (F memory files, default 500). A
 * fifth of the events go to one section of one file (the file page and the section history
 * measured), the rest are spread over the other files' sections, written 25 ops a write. Prints the
 * median and maximum of 20 renders of each page.
 */
@EnabledIfSystemProperty(named = "memoryd.console.bench", matches = "\\d+")
class ConsoleRenderBench {
    private static final String[] SECTIONS = {"Identity", "Role", "Triggers", "Needs", "Concerns", "Evolution"};

    @Test
    void renderTimes_ofEveryPage_onALargeRoot(@TempDir Path tmp) throws Exception {
        int n = Integer.parseInt(System.getProperty("memoryd.console.bench"));
        int files = Integer.getInteger("memoryd.console.bench.files", 500);
        try (ConsoleRoot root = new ConsoleRoot(tmp).serve()) {
            int existing = root.ok("files", "{}").path("files").size();
            List<String> parts = new ArrayList<>();
            for (int have = existing; have < files; ) {
                StringBuilder ops = new StringBuilder();
                for (int k = 0; k < 25; k++) {
                    String id = "bench-" + parts.size();
                    parts.add("users/sam/parts/" + id + "/profile.md");
                    ops.append(k == 0 ? "" : ",")
                            .append("{\"op\":\"create_entity\",\"user_id\":\"sam\",\"entity_type\":\"part\","
                                    + "\"entity_id\":\"")
                            .append(id)
                            .append("\",\"title\":\"Bench ")
                            .append(id)
                            .append("\"}");
                }
                root.ok("write", "{\"rationale\":\"bench files\",\"actor\":\"bench\",\"ops\":[" + ops + "]}");
                have = root.ok("files", "{}").path("files").size();
            }
            long lines = root.ok("ledger.verify", "{}").path("lines").asLong();
            int hot = (int) Math.max(0, n / 5);
            for (int i = 0; i < hot; i++) {
                root.ok(
                        "write",
                        "{\"rationale\":\"step " + i
                                + "\",\"actor\":\"bench\",\"ops\":[{\"op\":\"replace_section\",\"path\":\""
                                + ConsoleRoot.YOUNG + "\",\"section\":\"Evolution\",\"content\":\"Version " + i
                                + ".\"}]}");
            }
            long rest = n - lines - hot;
            for (long i = 0; i < rest; ) {
                StringBuilder ops = new StringBuilder();
                for (int k = 0; k < 25 && i < rest; k++, i++) {
                    ops.append(k == 0 ? "" : ",")
                            .append("{\"op\":\"replace_section\",\"path\":\"")
                            .append(parts.get((int) (i % parts.size())))
                            .append("\",\"section\":\"")
                            .append(SECTIONS[(int) (i / parts.size() % SECTIONS.length)])
                            .append("\",\"content\":\"Spread ")
                            .append(i)
                            .append(".\"}");
                }
                root.ok("write", "{\"rationale\":\"spread\",\"actor\":\"bench\",\"ops\":[" + ops + "]}");
            }
            System.out.println("console bench root: "
                    + root.ok("ledger.verify", "{}").path("lines").asLong() + " events, "
                    + root.ok("files", "{}").path("files").size() + " memory files");
            Browserless b = new Browserless(root);
            b.login();
            for (String path : new String[] {
                "/",
                "/files",
                "/files?page=10",
                "/file?path=" + ConsoleRoot.YOUNG,
                "/file/section?path=" + ConsoleRoot.YOUNG + "&section=evolution",
                "/search?q=version",
                "/ledger"
            }) {
                long[] ms = new long[20];
                for (int i = 0; i < ms.length; i++) {
                    long t0 = System.nanoTime();
                    HttpResponse<String> r = b.get(path);
                    ms[i] = (System.nanoTime() - t0) / 1_000_000;
                    assertEquals(200, r.statusCode(), path);
                }
                java.util.Arrays.sort(ms);
                System.out.println("console render " + path + ": median " + ms[ms.length / 2] + " ms, max "
                        + ms[ms.length - 1] + " ms");
            }
        }
    }
}
