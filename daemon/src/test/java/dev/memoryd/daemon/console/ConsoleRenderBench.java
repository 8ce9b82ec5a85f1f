package dev.memoryd.daemon.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpResponse;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long the heaviest pages take on a section with many events: run with
 * {@code -Dmemoryd.console.bench=N} (N writes); prints the median of 20 renders of each page.
 */
@EnabledIfSystemProperty(named = "memoryd.console.bench", matches = "\\d+")
class ConsoleRenderBench {
  @Test
  void renderTimes_ofAFileAndASectionHistory_withManyEvents(@TempDir Path tmp) throws Exception {
    int n = Integer.parseInt(System.getProperty("memoryd.console.bench"));
    try (ConsoleRoot root = new ConsoleRoot(tmp).serve()) {
      for (int i = 0; i < n; i++) {
        root.ok("write", "{\"rationale\":\"step " + i + "\",\"actor\":\"bench\",\"ops\":[{\"op\":\"replace_section\",\"path\":\""
            + ConsoleRoot.YOUNG + "\",\"section\":\"Evolution\",\"content\":\"Version " + i + ".\"}]}");
      }
      Browserless b = new Browserless(root);
      b.login();
      for (String path : new String[] {"/", "/file?path=" + ConsoleRoot.YOUNG,
          "/file/section?path=" + ConsoleRoot.YOUNG + "&section=evolution", "/search?q=version"}) {
        long[] ms = new long[20];
        for (int i = 0; i < ms.length; i++) {
          long t0 = System.nanoTime();
          HttpResponse<String> r = b.get(path);
          ms[i] = (System.nanoTime() - t0) / 1_000_000;
          assertEquals(200, r.statusCode(), path);
        }
        java.util.Arrays.sort(ms);
        System.out.println("console render " + path + " with " + n + " events: median " + ms[ms.length / 2] + " ms, max "
            + ms[ms.length - 1] + " ms");
      }
    }
  }
}
