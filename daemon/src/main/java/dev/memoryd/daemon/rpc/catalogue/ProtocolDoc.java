package dev.memoryd.daemon.rpc.catalogue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.api.ErrorReason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Renders docs/PROTOCOL.md from the {@link MethodCatalogue}: a summary table, one section per
 * method (description, params, result, errors, flags) and the error reasons. The output is a
 * pure function of the catalogue, so a test can hold the committed file to it.
 * {@code main(path)} writes it.
 */
public final class ProtocolDoc {
    /** Where the catalogue is declared, as the generated file names it. */
    public static final String SOURCE = "daemon/src/main/resources/dev/memoryd/daemon/rpc/catalogue/methods.yaml";

    private ProtocolDoc() {}

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/PROTOCOL.md");
        Files.writeString(out, render(MethodCatalogue.get()), StandardCharsets.UTF_8);
    }

    /** The whole document. */
    public static String render(MethodCatalogue cat) {
        StringBuilder b = new StringBuilder();
        b.append("# memoryd socket protocol\n\n");
        b.append("<!-- Generated from ").append(SOURCE).append(" by ProtocolDoc; do not edit by hand.\n");
        b.append(
                "     MethodCatalogueTest fails when this file and the catalogue differ; it rewrites the file when run\n");
        b.append("     with -Dmemoryd.protocol.write=true. -->\n\n");
        b.append("JSON-RPC 2.0, one object per line (UTF-8, `\\n`), on `<root>/.memoryd/memoryd.sock` (0600\n");
        b.append("inside a 0700 directory; peers of another uid are refused). Replies keep request order per\n");
        b.append("connection. `params` is an object (omitted or null: `{}`) and a method refuses parameters it\n");
        b.append("does not declare. Every method is also an MCP tool of `memoryd mcp` (docs/MCP.md), named with\n");
        b.append("`_` for `.`, with the same parameters and result.\n\n");
        b.append("| method | params | result | effect |\n| --- | --- | --- | --- |\n");
        for (MethodSpec m : cat.methods()) {
            b.append("| [`")
                    .append(m.name())
                    .append("`](#")
                    .append(slug(m.name()))
                    .append(") | ")
                    .append(paramsShort(m))
                    .append(" | ")
                    .append(cell(m.summary()))
                    .append(" | ")
                    .append(effect(m))
                    .append(" |\n");
        }
        for (MethodSpec m : cat.methods()) {
            method(b, m);
        }
        b.append("\n## Errors\n\n");
        b.append(
                "An error reply is `{jsonrpc, id, error: {code, message, data: {reason, ...}}}`; `data.reason` is one of\n");
        b.append("these, and other `data` members name what failed (`field`, `op_index`, `current_hash`, ...). Any\n");
        b.append("method may answer ");
        b.append(String.join(
                ", ",
                MethodSpec.ANY_METHOD.stream()
                        .map(r -> "`" + r.wireName() + "`")
                        .toList()));
        b.append(".\n\n| reason | code |\n| --- | --- |\n");
        for (ErrorReason r : ErrorReason.values()) {
            b.append("| `").append(r.wireName()).append("` | ").append(r.code()).append(" |\n");
        }
        return b.toString();
    }

    private static void method(StringBuilder b, MethodSpec m) {
        b.append("\n## ").append(m.name()).append("\n\n");
        b.append(m.description()).append("\n\n");
        b.append("MCP tool `")
                .append(m.toolName())
                .append("`; ")
                .append(effect(m))
                .append(".\n\n");
        List<String> names = m.paramNames();
        if (names.isEmpty()) {
            b.append("Params: none.\n\n");
        } else {
            Set<String> required = new HashSet<>();
            m.params().path("required").forEach(r -> required.add(r.asText()));
            b.append("| param | type | required | description |\n| --- | --- | --- | --- |\n");
            for (String n : names) {
                JsonNode s = m.params().path("properties").path(n);
                b.append("| `")
                        .append(n)
                        .append("` | ")
                        .append(type(s))
                        .append(" | ")
                        .append(required.contains(n) ? "yes" : "no")
                        .append(" | ")
                        .append(cell(about(s)))
                        .append(" |\n");
            }
            b.append('\n');
        }
        b.append("Result: ").append(m.returns()).append("\n\n");
        List<String> errs = new ArrayList<>();
        m.errors().forEach(r -> errs.add("`" + r.wireName() + "`"));
        b.append("Errors: ")
                .append(errs.isEmpty() ? "only those any method may answer" : String.join(", ", errs))
                .append(".\n");
    }

    private static String effect(MethodSpec m) {
        if (m.readOnly()) {
            return "read-only";
        }
        String w = m.destructive() ? "writes (may overwrite)" : "writes (adds)";
        return m.idempotent() ? w + ", idempotent" : w;
    }

    private static String paramsShort(MethodSpec m) {
        List<String> names = m.paramNames();
        if (names.isEmpty()) {
            return "–";
        }
        Set<String> required = new HashSet<>();
        m.params().path("required").forEach(r -> required.add(r.asText()));
        List<String> out = new ArrayList<>();
        for (String n : names) {
            out.add(required.contains(n) ? n : n + "?");
        }
        return "`{" + String.join(", ", out) + "}`";
    }

    /** A schema's type in words: {@code integer 1..5, default 1}, {@code array of string}. */
    static String type(JsonNode s) {
        JsonNode t = s.get("type");
        String base;
        if (t == null) {
            base = "any";
        } else if (t.isArray()) {
            List<String> parts = new ArrayList<>();
            t.forEach(x -> parts.add(x.asText()));
            base = String.join(" or ", parts);
        } else {
            base = t.asText();
        }
        if ("array".equals(base) && s.has("items") && s.get("items").has("type")) {
            base = "array of " + s.get("items").get("type").asText();
        }
        if (s.has("enum")) {
            List<String> vals = new ArrayList<>();
            s.get("enum").forEach(x -> vals.add("`" + x.asText() + "`"));
            base = base + ": " + String.join(", ", vals);
        }
        if (s.has("minimum") && s.has("maximum")) {
            base = base + " " + s.get("minimum").asText() + "..="
                    + s.get("maximum").asText();
        } else if (s.has("minimum")) {
            base = base + " ≥ " + s.get("minimum").asText();
        }
        if (s.has("minItems")) {
            base = "non-empty " + base;
        }
        if (s.has("default")) {
            base = base + ", default " + s.get("default").asText();
        }
        return base;
    }

    private static String about(JsonNode s) {
        return s.path("description").asText("");
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    /** GitHub's heading anchor: lower case, dots dropped. */
    private static String slug(String name) {
        return name.toLowerCase(java.util.Locale.ROOT).replace(".", "");
    }
}
