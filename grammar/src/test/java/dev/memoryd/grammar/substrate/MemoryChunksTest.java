package dev.memoryd.grammar.substrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.grammar.slices.SliceFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The example tree as chunks: user, parts on the user, the relationship on both parts, ordered sections. */
class MemoryChunksTest {
    private static Map<String, String> exampleTree() throws Exception {
        Path users = Path.of(
                MemoryChunksTest.class.getClassLoader().getResource("users").toURI());
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(users)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put("users/" + users.relativize(p).toString().replace('\\', '/'), Files.readString(p));
            }
        }
        return out;
    }

    @Test
    void exampleTree_relationshipSitsAtTheIntersectionOfItsParts() throws Exception {
        Map<String, String> files = exampleTree();
        ChunkGraph g = new ChunkGraph();
        for (Map.Entry<String, String> f : files.entrySet()) {
            MemoryChunks.derive(
                            f.getKey(),
                            f.getValue(),
                            p -> Optional.ofNullable(files.get(p))
                                    .flatMap(t -> SliceFile.parse(t).slice())
                                    .map(s -> s.path("id").asText()))
                    .forEach(g::put);
        }
        String critic = ((ChunkGraph.Resolution.Found) g.resolve("sam/inner-critic")).id();
        String young = ((ChunkGraph.Resolution.Found) g.resolve("sam/young-one")).id();
        List<String> both = g.scope(List.of(critic, young), List.of());
        assertEquals(1, both.size(), both.toString());
        assertEquals("critic-protects-young-one", g.chunk(both.get(0)).name());
        assertEquals(
                "users/sam/relationships/critic-protects-young-one/profile.md",
                g.chunk(both.get(0)).file());
        List<String> sections = g.scope(List.of(critic), List.of());
        String first = sections.get(0);
        assertEquals("identity", g.chunk(first).name(), "sections come in file order (seq)");
        assertEquals("Identity", g.chunk(first).section());
        assertTrue(g.chunk(first).derived());
        assertTrue(g.named("notes").size() >= 4);
    }
}
