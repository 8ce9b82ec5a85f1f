package dev.memoryd.daemon.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.memoryd.daemon.rpc.catalogue.MethodCatalogue;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dispatcher routes exactly the catalogue's methods, and refuses to start when they disagree. */
class RoutesTest {
    private static final MethodCatalogue CAT = MethodCatalogue.get();

    @Test
    void everyCatalogueMethodRoutes_andNoRouteIsOutsideIt() {
        Routes r = Dispatcher.routes(null, CAT);
        for (String m : CAT.names()) {
            assertTrue(r.find(m) != null, m + " has no route");
        }
        assertEquals(CAT.names(), r.names());
        assertEquals(null, r.find("nope"));
    }

    @Test
    void aRouteOutsideTheCatalogue_stopsTheBuild() {
        Namespace extra = namespace("memory", "frobnicate");
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> Routes.build(
                        CAT, List.of(extra, namespace("memory", CAT.names().toArray(String[]::new)))));
        assertTrue(e.getMessage().contains("frobnicate is routed by memory but not in the catalogue"), e.getMessage());
    }

    @Test
    void aCatalogueMethodWithoutRoute_stopsTheBuild() {
        IllegalStateException e = assertThrows(
                IllegalStateException.class, () -> Routes.build(CAT, List.of(namespace("memory", "ping", "write"))));
        assertTrue(e.getMessage().contains("drift.list is in the catalogue but has no route"), e.getMessage());
    }

    @Test
    void aRouteInAnotherGroup_stopsTheBuild() {
        IllegalStateException e = assertThrows(
                IllegalStateException.class, () -> Routes.build(CAT, List.of(namespace("ledger", "ping"))));
        assertTrue(
                e.getMessage().contains("ping is routed by ledger but the catalogue puts it in memory"),
                e.getMessage());
    }

    @Test
    void unknownMethod_listsTheCatalogueAsKnown() throws Exception {
        Dispatcher d = new Dispatcher(null);
        JsonNode reply = JsonRpc.MAPPER.readTree(
                d.apply("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\"}").orElseThrow());
        assertEquals("unknown_method", reply.at("/error/data/reason").asText());
        assertEquals(
                "unknown method 'nope'; known: " + String.join(", ", CAT.names()),
                reply.at("/error/message").asText());
    }

    private static Namespace namespace(String group, String... methods) {
        return new Namespace() {
            @Override
            public String group() {
                return group;
            }

            @Override
            public Map<String, Handler> routes() {
                Map<String, Handler> m = new java.util.LinkedHashMap<>();
                for (String x : methods) {
                    m.put(x, p -> JsonNodeFactory.instance.objectNode());
                }
                return m;
            }
        };
    }
}
