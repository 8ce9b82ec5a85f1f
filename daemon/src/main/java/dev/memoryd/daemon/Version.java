package dev.memoryd.daemon;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The build's version, filtered into a resource by Maven. */
final class Version {
    static final String VERSION = load();

    private Version() {}

    private static String load() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "dev");
        } catch (IOException e) {
            return "dev";
        }
    }
}
