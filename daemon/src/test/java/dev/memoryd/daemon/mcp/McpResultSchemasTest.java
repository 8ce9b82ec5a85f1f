package dev.memoryd.daemon.mcp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.daemon.rpc.catalogue.MethodCatalogue;
import dev.memoryd.daemon.rpc.catalogue.MethodSpec;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator.ValidationResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ResultSchemas}: tool results checked against the catalogue's result schemas. */
class McpResultSchemasTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private final ResultSchemas schemas = new ResultSchemas(JSON);

    private static Map<String, Object> resultSchema(String method) {
        MethodSpec m = MethodCatalogue.get().methods().stream()
                .filter(s -> s.name().equals(method))
                .findFirst()
                .orElseThrow();
        return JSON.convertValue(m.result(), MAP);
    }

    @Test
    void aPingResult_isJudgedByTheCatalogueSchema_asATreeAndAsAMap_onEveryCall() throws Exception {
        Map<String, Object> schema = resultSchema("ping");
        JsonNode fits = JSON.readTree("{\"version\":\"0.1\",\"protocol\":\"1\",\"root\":\"/m\",\"branch\":\"main\","
                + "\"head\":null,\"drift_open\":0,\"peers\":[]}");
        JsonNode breaks = JSON.readTree("{\"version\":\"0.1\",\"protocol\":\"1\",\"root\":\"/m\",\"branch\":\"main\","
                + "\"drift_open\":\"none\"}");
        for (int i = 0; i < 3; i++) {
            assertTrue(schemas.validate(schema, fits).valid(), fits.toString());
            assertTrue(schemas.validate(schema, JSON.convertValue(fits, MAP)).valid(), fits.toString());
            assertFalse(schemas.validate(schema, breaks).valid(), breaks.toString());
        }
    }

    @Test
    void aSectionWithoutAnAnchor_fitsTheSchemasOfTheResultsThatListSections() throws Exception {
        JsonNode read = JSON.readTree("{\"path\":\"users/sam/overview.md\",\"commit\":null,\"content\":\"x\","
                + "\"sections\":[{\"name\":\"Scratch\",\"anchor\":null}]}");
        assertTrue(schemas.validate(resultSchema("read"), read).valid(), read.toString());
        JsonNode list = JSON.readTree("{\"path\":\"users/sam/overview.md\",\"commit\":null,"
                + "\"sections\":[{\"name\":\"Scratch\",\"anchor\":null,\"content\":\"x\",\"locked\":false,"
                + "\"last_change\":null}]}");
        assertTrue(schemas.validate(resultSchema("sections.list"), list).valid(), list.toString());
        JsonNode history =
                JSON.readTree("{\"path\":\"users/sam/overview.md\",\"section\":null,\"total\":0,\"events\":[]}");
        assertTrue(schemas.validate(resultSchema("sections.history"), history).valid(), history.toString());
    }

    @Test
    void aResultOfTheWrongShape_isInvalid_sayingWhy() {
        Map<String, Object> schema = Map.of(
                "type", "object",
                "required", java.util.List.of("hash"),
                "properties", Map.of("hash", Map.of("type", "string")));
        ValidationResponse r = schemas.validate(schema, JSON.createObjectNode().put("hash", 3));
        assertFalse(r.valid());
        assertTrue(r.errorMessage().contains("hash"), r.errorMessage());
        assertFalse(schemas.validate(schema, JSON.createObjectNode()).valid(), "a required key missing");
        assertTrue(schemas.validate(schema, JSON.createObjectNode().put("hash", "abc"))
                .valid());
    }
}
