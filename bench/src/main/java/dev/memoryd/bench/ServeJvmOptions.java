package dev.memoryd.bench;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The JVM settings a daemon runs with, kept in one file, {@code bin/serve-jvm.options} (one
 * option per line, {@code #} comments saying why), which {@code bin/memoryd serve} passes to
 * {@code java} and the benchmark passes to the daemon it starts.
 */
final class ServeJvmOptions {
    static final String FILE = "bin/serve-jvm.options";
    private static final Pattern COLLECTOR = Pattern.compile("-XX:\\+Use\\w*GC");

    private ServeJvmOptions() {}

    /** The options in {@code file}, comments and blank lines left out. */
    static List<String> read(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            String opt = line.replaceFirst("#.*", "").strip();
            if (!opt.isEmpty()) {
                out.add(opt);
            }
        }
        return out;
    }

    /** The options file of the build this class was loaded from. */
    static Path locate() throws IOException {
        Path p;
        try {
            p = Path.of(ServeJvmOptions.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException | SecurityException e) {
            throw new IOException("cannot tell where memoryd was loaded from, to find " + FILE, e);
        }
        for (; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve(FILE))) {
                return p.resolve(FILE);
            }
        }
        throw new IOException("no " + FILE + " above "
                + ServeJvmOptions.class.getProtectionDomain().getCodeSource().getLocation()
                + "; run memoryd from its source tree");
    }

    /**
     * {@code base} followed by {@code extra}; when {@code extra} selects a collector, {@code base}'s
     * collector is left out (the JVM refuses two).
     */
    static List<String> withExtra(List<String> base, List<String> extra) {
        boolean ownCollector = extra.stream().anyMatch(o -> COLLECTOR.matcher(o).matches());
        List<String> out = new ArrayList<>();
        for (String o : base) {
            if (!(ownCollector && COLLECTOR.matcher(o).matches())) {
                out.add(o);
            }
        }
        out.addAll(extra);
        return out;
    }
}
