package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The service definitions under {@code contrib/}: the systemd user unit parses (and passes {@code
 * systemd-analyze verify --user} with no warning where systemd is installed) and starts
 * {@code serve}; the launchd plist is well-formed and does the same.
 */
class ContribUnitsTest {
    static final Path CONTRIB = Path.of("..", "contrib").toAbsolutePath().normalize();
    static final Path UNIT = CONTRIB.resolve("systemd/memoryd.service");

    @TempDir
    Path tmp;

    @Test
    void systemdUnit_isWellFormed_andServesWithACleanStop() throws Exception {
        Map<String, Map<String, List<String>>> ini = ini(Files.readAllLines(UNIT, StandardCharsets.UTF_8));
        assertEquals(List.of("Unit", "Service", "Install"), List.copyOf(ini.keySet()));
        List<String> exec = ini.get("Service").get("ExecStart");
        assertEquals(1, exec.size(), exec.toString());
        assertTrue(exec.get(0).matches("\\S+/bin/memoryd serve --root \\S+"), exec.toString());
        assertEquals(List.of("SIGTERM"), ini.get("Service").get("KillSignal"));
        assertEquals(List.of("on-failure"), ini.get("Service").get("Restart"));
        assertEquals(List.of("default.target"), ini.get("Install").get("WantedBy"));
    }

    @Test
    void systemdUnit_passesSystemdAnalyzeVerify_whereSystemdIsInstalled() throws Exception {
        String analyze = onPath("systemd-analyze");
        if (analyze == null) {
            // Said, not skipped silently: the unit's syntax is still checked by the test above.
            System.err.println("ContribUnitsTest: systemd-analyze is not on PATH; only the INI check ran");
            return;
        }
        // verify also checks that ExecStart's program exists: point it at this checkout's launcher.
        Path launcher = CONTRIB.resolveSibling("bin/memoryd");
        Path unit = tmp.resolve("memoryd.service");
        Files.writeString(
                unit, Files.readString(UNIT).replaceAll("ExecStart=\\S+/bin/memoryd", "ExecStart=" + launcher));
        Path runtime = Files.createDirectory(
                tmp.resolve("xdg"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        ProcessBuilder pb = new ProcessBuilder(analyze, "verify", "--user", unit.toString()).redirectErrorStream(true);
        pb.environment().put("XDG_RUNTIME_DIR", runtime.toString()); // a user manager needs one, even to verify
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "systemd-analyze did not finish");
        assertEquals(0, p.exitValue(), out);
        assertEquals("", out.strip(), "systemd-analyze warned"); // unknown keys and bad values are warnings, exit 0
    }

    @Test
    void launchdPlist_isWellFormed_andServesTheRoot() throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        Element dict = (Element) f.newDocumentBuilder()
                .parse(CONTRIB.resolve("launchd/dev.memoryd.plist").toFile())
                .getDocumentElement()
                .getElementsByTagName("dict")
                .item(0);
        Map<String, Element> keys = new LinkedHashMap<>();
        NodeList kids = dict.getChildNodes();
        String key = null;
        for (int i = 0; i < kids.getLength(); i++) {
            if (kids.item(i) instanceof Element e) {
                if (e.getTagName().equals("key")) {
                    key = e.getTextContent();
                } else {
                    keys.put(key, e);
                }
            }
        }
        assertEquals("dev.memoryd", keys.get("Label").getTextContent());
        List<String> args = new ArrayList<>();
        NodeList strings = keys.get("ProgramArguments").getElementsByTagName("string");
        for (int i = 0; i < strings.getLength(); i++) {
            args.add(strings.item(i).getTextContent());
        }
        assertTrue(
                args.get(0).endsWith("/bin/memoryd") && args.subList(1, 3).equals(List.of("serve", "--root")),
                args.toString());
        assertEquals("true", keys.get("RunAtLoad").getTagName());
    }

    /** Sections of a systemd unit file, each key's values in order; a line that is neither fails the test. */
    private static Map<String, Map<String, List<String>>> ini(List<String> lines) {
        Map<String, Map<String, List<String>>> out = new LinkedHashMap<>();
        Map<String, List<String>> section = null;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            if (l.isEmpty() || l.startsWith("#") || l.startsWith(";")) {
                continue;
            }
            if (l.matches("\\[[A-Za-z]+]")) {
                section = new LinkedHashMap<>();
                out.put(l.substring(1, l.length() - 1), section);
                continue;
            }
            assertTrue(
                    section != null && l.matches("[A-Za-z]+=.*"),
                    "line " + (i + 1) + " is not Key=value in a section: " + l);
            section.computeIfAbsent(l.substring(0, l.indexOf('=')), k -> new ArrayList<>())
                    .add(l.substring(l.indexOf('=') + 1));
        }
        return out;
    }

    private static String onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
