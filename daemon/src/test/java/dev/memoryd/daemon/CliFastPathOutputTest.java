package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.daemon.cli.Main;
import dev.memoryd.daemon.cli.RootCommand;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The everyday commands print the same bytes and exit with the same code whether their arguments
 * took the fast path ({@link Main#run}) or went through picocli's whole tree
 * ({@code RootCommand.commandLine().execute}), against a served root and a root nobody serves. Which
 * argument vectors take the fast path is {@code FastArgsTest}'s: every option in its plain forms.
 */
class CliFastPathOutputTest {
    @TempDir
    Path tmp;

    private static final String DECL = "{\"rationale\":\"cli\",\"ops\":[{\"op\":\"append_item\",\"path\":"
            + "\"users/sam/overview.md\",\"section\":\"Active Themes\",\"item\":\"%s\"}]}";

    @Test
    void readSearchScopeHistoryAndRefusals_printTheSameBytesEitherWay() throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            assertTrue(root.call(
                            "declare",
                            "{\"rationale\":\"t\",\"chunks\":[{\"name\":\"topic\",\"body\":{\"text\":\"a"
                                    + " topic\"}}]}")
                    .has("result"));
            Path decl = Files.writeString(tmp.resolve("d.json"), DECL.formatted("From a file"));
            assertEquals(
                    0, Cli.run(root.cliArgs("write", "--file", decl.toString())).code());
            Path nobody = tmp.resolve("nobody");
            List<List<String>> vectors = List.of(
                    List.of("read", "users/sam/overview.md"),
                    List.of("read", "users/sam/overview.md", "--section", "Identity"),
                    List.of("read", "--section=Active Themes", "users/sam/overview.md", "--json"),
                    List.of("read", "users/sam/overview.md", "--at", "HEAD~1", "--section", "Active Themes"),
                    List.of("read", "users/sam/overview.md", "--section", "Nope"),
                    List.of("read", "users/nobody.md"),
                    List.of("search", "sam"),
                    List.of("search", "teacher", "--limit", "1", "--json"),
                    List.of("search", "zzzznothing"),
                    List.of("search", "sam", "--source", "inference"),
                    List.of("scope", "topic"),
                    List.of("scope", "topic", "--json", "--limit", "1", "--offset", "0"),
                    List.of("scope", "topic", "--minus", "topic", "--minus", "other"),
                    List.of("scope", "no/such/scope"),
                    List.of("history", "users/sam/overview.md"),
                    List.of("history", "users/sam/overview.md", "--section", "Active Themes", "--limit", "1"),
                    List.of("history", "users/sam/overview.md", "--json", "--limit=2"),
                    List.of("history", "users/nobody.md"),
                    List.of("history", "users/sam/overview.md", "--branch", "nope"));
            int printed = 0;
            for (List<String> v : vectors) {
                Pair p = both(root.cliArgs(v.toArray(String[]::new)), null);
                assertSame(v, p);
                printed += p.fast().code() == 0 && !p.fast().out().isEmpty() ? 1 : 0;
            }
            assertTrue(printed >= 10, printed + " of the served vectors printed a result"); // not all refusals
            for (List<String> v : List.of(
                    List.of("ping", "--root", nobody.toString()),
                    List.of("search", "x", "--root", nobody.toString()),
                    List.of("history", "x.md", "--root=" + nobody),
                    List.of("ping", "--half-life-days", "0", "--root", nobody.toString()), // refused by config()
                    List.of("scope", "x", "--root", nobody.toString(), "--json"))) {
                assertSame(v, both(v.toArray(String[]::new), null));
            }
            for (String stdin : List.of(
                    "{nope",
                    "[1]",
                    DECL.replace("Active Themes", "Nope"),
                    DECL.formatted("x").replace("\"ops\"", "\"o\""))) {
                assertSame(List.of("write", stdin), both(root.cliArgs("write"), stdin));
                assertSame(List.of("write --json", stdin), both(root.cliArgs("write", "--json"), stdin));
            }
        }
    }

    @Test
    void pingAndWrite_printTheSameShapeEitherWay_differingOnlyInCountsAndIds() throws Exception {
        try (TestRoot root = new TestRoot(tmp).serve()) {
            for (String[] args : List.of(root.cliArgs("ping"), root.cliArgs("ping", "--json"))) {
                Pair p = both(args, null);
                assertEquals(p.fast().code(), p.picocli().code(), p.toString());
                assertEquals(masked(p.fast().out()), masked(p.picocli().out()), p.toString());
                assertEquals(p.fast().err(), p.picocli().err(), p.toString());
            }
            Pair w = both(
                    root.cliArgs("write", "--source", "inference", "--confidence", "0.5", "--context", "why"),
                    DECL.formatted("Twice"));
            assertEquals(0, w.fast().code(), w.toString());
            assertEquals(w.fast().code(), w.picocli().code(), w.toString());
            assertEquals(masked(w.fast().out()), masked(w.picocli().out()), w.toString());
            assertEquals(w.fast().err(), w.picocli().err(), w.toString());
        }
    }

    /** {@code s} with every number and every id (hex, ULID) blanked: what differs between two calls. */
    private static String masked(String s) {
        return s.replaceAll("[0-9A-Za-z]{20,}", "ID").replaceAll("[0-9]+(\\.[0-9]+)?", "N");
    }

    record Pair(Cli.Run fast, Cli.Run picocli) {}

    private static void assertSame(List<String> v, Pair p) {
        assertEquals(p.fast().toString(), p.picocli().toString(), "fast path and picocli differ for " + v);
    }

    /** {@code args} run through {@link Main#run} and through picocli's whole tree, each fed {@code stdin}. */
    private static Pair both(String[] args, String stdin) {
        return new Pair(
                captured(args, stdin, Main::run),
                captured(args, stdin, a -> RootCommand.commandLine().execute(a)));
    }

    private static Cli.Run captured(String[] args, String stdin, ToIntFunction<String[]> how) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        InputStream oldIn = System.in;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        System.setIn(new ByteArrayInputStream((stdin == null ? "" : stdin).getBytes(StandardCharsets.UTF_8)));
        try {
            int code = how.applyAsInt(args);
            return new Cli.Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
            System.setIn(oldIn);
        }
    }
}
