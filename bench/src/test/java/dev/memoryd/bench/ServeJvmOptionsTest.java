package dev.memoryd.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The launcher's serve settings file, as the benchmark's daemon reads it. */
class ServeJvmOptionsTest {
    @Test
    void launcherFile_isFound_andReadAsOptionsWithoutComments() throws Exception {
        List<String> opts = ServeJvmOptions.read(ServeJvmOptions.locate());
        assertTrue(
                opts.contains("-XX:+UseSerialGC") && opts.stream().anyMatch(o -> o.startsWith("-Xmx")),
                opts.toString());
        assertTrue(
                opts.stream().allMatch(o -> o.startsWith("-") && !o.contains("#") && !o.contains(" ")),
                opts.toString());
    }

    @Test
    void extraCollector_replacesTheFilesCollector_otherExtrasAreAdded() {
        List<String> base = List.of("-XX:+UseSerialGC", "-Xmx512m");
        assertEquals(List.of("-Xmx512m", "-XX:+UseG1GC"), ServeJvmOptions.withExtra(base, List.of("-XX:+UseG1GC")));
        assertEquals(
                List.of("-XX:+UseSerialGC", "-Xmx512m", "-XX:StartFlightRecording"),
                ServeJvmOptions.withExtra(base, List.of("-XX:StartFlightRecording")));
    }
}
