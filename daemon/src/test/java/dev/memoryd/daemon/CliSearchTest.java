package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code memoryd search} through the CLI: hits exit 0; no hit says so on stderr and exits 1, as grep does. */
class CliSearchTest {
  @TempDir Path tmp;
  TestRoot root;

  @BeforeEach
  void up() throws Exception {
    root = new TestRoot(tmp).serve();
  }

  @AfterEach
  void down() {
    root.close();
  }

  private Cli.Run search(String... args) {
    String[] full = new String[args.length + 5];
    full[0] = "search";
    System.arraycopy(args, 0, full, 1, args.length);
    full[args.length + 1] = "--root";
    full[args.length + 2] = root.dir.toString();
    full[args.length + 3] = "--key-file";
    full[args.length + 4] = root.cfg.keyFile().toString();
    return Cli.run(full);
  }

  @Test
  void search_withHits_printsThemAndExitsZero() {
    Cli.Run r = search("teacher");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().contains("users/sam/parts/inner-critic/profile.md"), r.toString());
    assertEquals("", r.err(), r.toString());
  }

  @Test
  void search_withNoHit_saysSoOnStderr_andExitsOne() {
    Cli.Run r = search("nothingmatches");
    assertEquals(1, r.code(), r.toString());
    assertEquals("", r.out(), r.toString());
    assertEquals("memoryd: no match for 'nothingmatches'\n", r.err(), r.toString());
  }

  @Test
  void search_withNoHit_asJson_printsTheEmptyResult_andExitsOne() throws Exception {
    Cli.Run r = search("nothingmatches", "--json");
    assertEquals(1, r.code(), r.toString());
    assertEquals(0, TestRoot.json(r.out()).get("hits").size(), r.toString());
  }
}
