package dev.memoryd.daemon.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/** The console's one static file, its stylesheet, served from the jar (no CDN, no build step). */
final class Assets {
    private static final byte[] CSS = load("console.css");

    private Assets() {}

    static Response css() {
        return new Response(200, "text/css; charset=utf-8", CSS, Map.of());
    }

    private static byte[] load(String name) {
        try (InputStream in = Assets.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the console's " + name + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
