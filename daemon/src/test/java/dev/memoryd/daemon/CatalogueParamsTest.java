package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.rpc.catalogue.MethodCatalogue;
import dev.memoryd.daemon.rpc.catalogue.MethodSpec;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every method's declared params are exactly the params its handler accepts: a request with an
 * unknown parameter is refused naming the accepted ones, and those are the catalogue's.
 */
class CatalogueParamsTest {
    @TempDir
    static Path tmp;

    static TestRoot root;

    @BeforeAll
    static void up() throws Exception {
        root = new TestRoot(tmp).serve();
    }

    @AfterAll
    static void down() {
        root.close();
    }

    @Test
    void everyMethod_acceptsExactlyTheParamsTheCatalogueDeclares() throws Exception {
        for (MethodSpec m : MethodCatalogue.get().methods()) {
            JsonNode r = root.call(m.name(), "{\"zz_unknown\": 1}");
            assertEquals("invalid_request", r.at("/error/data/reason").asText(), m.name() + ": " + r);
            String msg = r.at("/error/message").asText();
            assertTrue(msg.startsWith("unknown parameter 'zz_unknown'"), m.name() + ": " + msg);
            List<String> accepted = msg.endsWith("this method takes none")
                    ? List.of()
                    : Arrays.asList(msg.substring(msg.indexOf("; expected ") + "; expected ".length())
                            .split(", "));
            assertEquals(new TreeSet<>(m.paramNames()), new TreeSet<>(accepted), m.name() + ": catalogue vs handler");
        }
    }
}
