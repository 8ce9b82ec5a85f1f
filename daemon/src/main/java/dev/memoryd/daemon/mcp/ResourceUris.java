package dev.memoryd.daemon.mcp;

import io.modelcontextprotocol.util.DefaultMcpUriTemplateManager;
import io.modelcontextprotocol.util.McpUriTemplateManager;
import io.modelcontextprotocol.util.McpUriTemplateManagerFactory;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A memory file's resource URI: {@code memoryd://} and its repository path, every byte outside
 * RFC 3986's unreserved characters and {@code /} percent-encoded (UTF-8), so a path with
 * {@code {}, {@code %} or a space still names exactly one file and never reads as a template.
 */
final class ResourceUris {
    static final String SCHEME = "memoryd://";
    /** The template every memory file's URI matches (RFC 6570 reserved expansion: slashes kept). */
    static final String TEMPLATE = SCHEME + "{+path}";

    private ResourceUris() {}

    static String of(String path) {
        StringBuilder b = new StringBuilder(SCHEME);
        for (byte x : path.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-._~/".indexOf(c) >= 0) {
                b.append((char) c);
            } else {
                b.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return b.toString();
    }

    /** The repository path a URI names, or null when it is not a {@code memoryd://} URI or is badly encoded. */
    static String path(String uri) {
        if (uri == null || !uri.startsWith(SCHEME) || uri.length() == SCHEME.length()) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = SCHEME.length(); i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '%') {
                if (i + 2 >= uri.length()) {
                    return null;
                }
                int hi = Character.digit(uri.charAt(i + 1), 16);
                int lo = Character.digit(uri.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                out.write(hi << 4 | lo);
                i += 2;
            } else if (c == '?' || c == '#') {
                return null;
            } else {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * The SDK's URI template matching, except for {@link #TEMPLATE}, which it cannot express (its
     * variables never span a {@code /}): that one matches every {@code memoryd://} URI.
     */
    static McpUriTemplateManagerFactory templates() {
        return template -> {
            if (!TEMPLATE.equals(template)) {
                return new DefaultMcpUriTemplateManager(template);
            }
            return new McpUriTemplateManager() {
                @Override
                public List<String> getVariableNames() {
                    return List.of("path");
                }

                @Override
                public Map<String, String> extractVariableValues(String uri) {
                    String p = path(uri);
                    return p == null ? Map.of() : Map.of("path", p);
                }

                @Override
                public boolean matches(String uri) {
                    return path(uri) != null;
                }

                @Override
                public boolean isUriTemplate(String uri) {
                    return true;
                }
            };
        };
    }
}
