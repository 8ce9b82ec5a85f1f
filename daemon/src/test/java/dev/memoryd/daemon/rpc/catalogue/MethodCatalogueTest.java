package dev.memoryd.daemon.rpc.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The catalogue loads whole and checked, and docs/PROTOCOL.md is what it renders. */
class MethodCatalogueTest {
    private static final Path PROTOCOL = Path.of("..", "docs", "PROTOCOL.md");

    @Test
    void everyMethod_hasAParamsObjectSchema_aDescription_andConsistentFlags() {
        MethodCatalogue cat = MethodCatalogue.get();
        assertTrue(cat.methods().size() >= 40, "methods: " + cat.names());
        for (MethodSpec m : cat.methods()) {
            assertEquals("object", m.params().path("type").asText(), m.name());
            assertFalse(m.params().path("additionalProperties").asBoolean(true), m.name() + " admits unknown params");
            assertTrue(m.description().length() > 40, m.name() + ": description too thin for a model");
            assertFalse(m.readOnly() && m.destructive(), m.name());
            if (m.result() != null) {
                assertEquals("object", m.result().path("type").asText(), m.name());
            }
        }
        MethodSpec read = cat.find("read").orElseThrow();
        assertTrue(read.readOnly() && read.idempotent());
        assertEquals("path", read.params().path("required").get(0).asText());
        assertTrue(cat.find("write").orElseThrow().destructive());
        assertEquals("drift_list", cat.find("drift.list").orElseThrow().toolName());
    }

    @Test
    void aRequiredParamNotDeclared_isRefused() throws Exception {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> MethodCatalogue.parse(yaml("""
        methods:
        - {name: m, group: g, summary: s, description: d, returns: r, params: {a: {type: string}}, required: [b]}
        """)));
        assertTrue(e.getMessage().contains("method m: required parameter 'b' is not among its params"), e.getMessage());
    }

    @Test
    void anUnknownErrorReason_aDuplicateName_orAnUnknownKey_isRefused() throws Exception {
        assertTrue(assertThrows(IllegalStateException.class, () -> MethodCatalogue.parse(yaml("""
        methods:
        - {name: m, group: g, summary: s, description: d, returns: r, params: {}, errors: [oops]}
        """)))
                .getMessage()
                .contains("unknown error reason 'oops'"));
        assertTrue(assertThrows(IllegalStateException.class, () -> MethodCatalogue.parse(yaml("""
        methods:
        - {name: m, group: g, summary: s, description: d, returns: r, params: {}}
        - {name: m, group: g, summary: s, description: d, returns: r, params: {}}
        """)))
                .getMessage()
                .contains("method m is declared twice"));
        assertTrue(assertThrows(IllegalStateException.class, () -> MethodCatalogue.parse(yaml("""
        methods:
        - {name: m, group: g, summary: s, description: d, returns: r, params: {}, readonly: true}
        """)))
                .getMessage()
                .contains("unknown key 'readonly'"));
    }

    @Test
    void committedProtocolDoc_isWhatTheCatalogueRenders() throws Exception {
        String rendered = ProtocolDoc.render(MethodCatalogue.get());
        if (Boolean.getBoolean("memoryd.protocol.write")) {
            Files.writeString(PROTOCOL, rendered, StandardCharsets.UTF_8);
        }
        assertTrue(Files.exists(PROTOCOL), "docs/PROTOCOL.md is missing");
        assertEquals(
                rendered,
                Files.readString(PROTOCOL, StandardCharsets.UTF_8),
                "docs/PROTOCOL.md differs from the catalogue (" + ProtocolDoc.SOURCE + "); regenerate it with "
                        + "mvn -q -o -pl daemon -am test -Dtest=MethodCatalogueTest -Dmemoryd.protocol.write=true "
                        + "-Dsurefire.failIfNoSpecifiedTests=false");
        for (MethodSpec m : MethodCatalogue.get().methods()) {
            assertTrue(rendered.contains("\n## " + m.name() + "\n"), m.name() + " has no section");
        }
    }

    private static JsonNode yaml(String s) throws Exception {
        JsonNode n = new YAMLMapper().readTree(s);
        assertNotNull(n);
        return n;
    }
}
