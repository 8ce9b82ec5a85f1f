package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Base of tests that run on {@link TwoRoots}: roots {@code a} and {@code b} and their remote. */
abstract class TwoRootsTest {
    @TempDir
    Path tmp;

    TwoRoots roots;
    Path remote;
    TestRoot a;
    TestRoot b;

    @BeforeEach
    void twoRootsAndARemote() throws Exception {
        roots = TwoRoots.start(tmp);
        remote = roots.remote;
        a = roots.a;
        b = roots.b;
    }

    @AfterEach
    void closeRoots() {
        roots.close();
    }

    static String run(String... cmd) throws Exception {
        return TwoRoots.run(cmd);
    }

    static JsonNode ok(JsonNode r) {
        assertTrue(r.has("result"), r.toString());
        return r.get("result");
    }

    static JsonNode sync(TestRoot r) throws Exception {
        return r.call("sync", "{\"remote\":\"origin\"}");
    }
}
