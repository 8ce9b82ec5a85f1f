package dev.memoryd.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Base of tests that talk to a daemon serving a fresh example root over its real socket. */
abstract class ServedRootTest {
    @TempDir
    Path tmp;

    TestRoot root;

    @BeforeEach
    void serveRoot() throws Exception {
        root = new TestRoot(tmp).serve();
    }

    @AfterEach
    void closeRoot() {
        root.close();
    }

    /** The result of {@code method}, failing the test with the reply when it is an error. */
    JsonNode ok(String method, String params) throws Exception {
        JsonNode r = root.call(method, params);
        org.junit.jupiter.api.Assertions.assertTrue(r.has("result"), method + " " + params + " answered " + r);
        return r.get("result");
    }
}
