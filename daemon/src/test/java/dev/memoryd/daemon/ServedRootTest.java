package dev.memoryd.daemon;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Base of tests that talk to a daemon serving a fresh example root over its real socket. */
abstract class ServedRootTest {
  @TempDir Path tmp;
  TestRoot root;

  @BeforeEach
  void serveRoot() throws Exception {
    root = new TestRoot(tmp).serve();
  }

  @AfterEach
  void closeRoot() {
    root.close();
  }
}
