package dev.memoryd.daemon.mcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The text of the {@code guide} tool: how memory is organised, for a model with no other instructions. */
final class Guide {
    private Guide() {}

    static String text() {
        try (InputStream in = Guide.class.getResourceAsStream("guide.md")) {
            if (in == null) {
                throw new IllegalStateException("guide.md is missing beside " + Guide.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
