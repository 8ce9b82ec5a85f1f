package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memoryd.daemon.cli.RootCommand;
import dev.memoryd.daemon.rpc.catalogue.MethodCatalogue;
import dev.memoryd.daemon.rpc.catalogue.MethodSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The method catalogue against the command line: every protocol method has a command, or is on
 * the socket-only list below with the reason, and every option or positional parameter of a
 * method's command names a parameter the method declares (its name with {@code _} for {@code -}),
 * or is one of the command line's own inputs listed here with what it stands for. A method added
 * to the catalogue, a command option renamed or a parameter dropped fails here until the command
 * and the lists agree. A method's command opens its description with the method's summary, from
 * the generated {@code MethodSummaries}.
 */
class CliCatalogueTest {
    /** The command of each method that has one (the command's words, as typed). */
    static final Map<String, String> COMMAND = Map.ofEntries(
            Map.entry("ping", "ping"),
            Map.entry("write", "write"),
            Map.entry("read", "read"),
            Map.entry("lint", "lint"),
            Map.entry("history", "history"),
            Map.entry("resolve", "resolve"),
            Map.entry("ledger.verify", "ledger verify"),
            Map.entry("ledger.rotate_key", "ledger rotate-key"),
            Map.entry("slip.send", "slip send"),
            Map.entry("slip.recv", "slip recv"),
            Map.entry("conversation.append", "conversation append"),
            Map.entry("context", "context"),
            Map.entry("explore", "explore"),
            Map.entry("slices.create", "slices create"),
            Map.entry("slices.list", "slices list"),
            Map.entry("append_row", "slices append-row"),
            Map.entry("routine.compile", "routine"),
            Map.entry("search", "search"),
            Map.entry("drift.list", "drift list"),
            Map.entry("drift.show", "drift show"),
            Map.entry("drift.resolve", "drift resolve"),
            Map.entry("capture", "capture"),
            Map.entry("notes.import", "import"),
            Map.entry("replay", "replay"),
            Map.entry("declare", "declare"),
            Map.entry("scope", "scope"),
            Map.entry("traverse", "traverse"),
            Map.entry("stale", "stale"),
            Map.entry("proposals.list", "proposals list"),
            Map.entry("proposals.show", "proposals show"),
            Map.entry("proposals.accept", "proposals accept"),
            Map.entry("proposals.reject", "proposals reject"),
            Map.entry("promotions.list", "promotions list"),
            Map.entry("promotions.accept", "promotions accept"),
            Map.entry("promotions.reject", "promotions reject"),
            Map.entry("grammar.set_cap", "grammar set-cap"),
            Map.entry("grammar.set_kind", "grammar set-kind"),
            Map.entry("refs.add", "refs add"),
            Map.entry("refs.reconcile", "refs reconcile"),
            Map.entry("refs.repin", "refs repin"),
            Map.entry("refs.retire", "refs retire"),
            Map.entry("refs.list", "refs list"),
            Map.entry("sync", "sync"),
            Map.entry("branch.create", "branch create"),
            Map.entry("branch.list", "branch list"),
            Map.entry("branch.delete", "branch delete"),
            Map.entry("branch.merge", "branch merge"));

    /** Methods with no command, and why a person at a terminal does not need one. */
    static final Map<String, String> SOCKET_ONLY = Map.of(
            "files",
                    "the memory files at the head: how the MCP server and the console list them; a person runs ls or git",
            "changes",
                    "the files changed since a commit: how the MCP server keeps its resources current; a person runs git diff",
            "sections.list",
                    "a file's sections with their last events: the console's file view; the command line has read and history",
            "sections.history",
                    "one section's events a page at a time: the console's paging; the command line has history --section",
            "sections.lock", "locking a section is a user's act in the console, which records who locked it",
            "sections.unlock", "unlocking a section is a user's act in the console, which records who unlocked it",
            "slices.rows",
                    "a JSONL slice's rows: read through the console and MCP; the command line prints the slice file with read");

    /** Inputs every command takes that are the command line's own, not a method's parameters. */
    static final Set<String> CLI_INPUTS =
            Set.of("root", "key-file", "templates", "half-life-days", "json", "help", "version");

    /**
     * Per command, its inputs that stand for a parameter under another name or carry the params
     * in another form, each with the parameter(s) it gives.
     */
    static final Map<String, Map<String, String>> STANDS_FOR = Map.ofEntries(
            Map.entry(
                    "write",
                    Map.of("file", "the whole params object, read from the file (or stdin)", "session", "session_id")),
            Map.entry(
                    "declare",
                    Map.of("file", "the whole params object, read from the file (or stdin)", "session", "session_id")),
            Map.entry("slices create", Map.of("body-file", "body, read from the file", "session", "session_id")),
            Map.entry("slices append-row", Map.of("session", "session_id")),
            Map.entry(
                    "conversation append",
                    Map.of("file", "turns, read from the file (or stdin)", "session", "session_id")),
            Map.entry("context", Map.of("anchor", "anchor_turn_id")),
            Map.entry("import", Map.of("dir", "notes, one per markdown file of the directory")),
            Map.entry(
                    "drift resolve",
                    Map.of(
                            "accept-current", "resolution accept_current",
                            "restore", "resolution restore",
                            "reanchor", "resolution reanchor (with from and to)",
                            "dismiss", "resolution dismiss")),
            Map.entry("branch merge", Map.of("take", "resolutions: one side for every conflict")),
            Map.entry("sync", Map.of("take", "resolutions: one side for every conflict")));

    private static final CommandLine TREE = RootCommand.commandLine();

    static final Path SUMMARIES = Path.of("src/main/java/dev/memoryd/daemon/cli/MethodSummaries.java");

    /** The source of {@code MethodSummaries}: each method's summary as a constant, for annotations. */
    static String summariesSource(MethodCatalogue cat) {
        StringBuilder b = new StringBuilder();
        b.append("package dev.memoryd.daemon.cli;\n\n");
        b.append("/**\n");
        b.append(" * Each protocol method's one-line summary from the method catalogue, as constants a command's\n");
        b.append(" * {@code @Command(description)} can name (an annotation takes only constants, and reading the\n");
        b.append(" * catalogue itself at start would cost a command its fast start). Generated from\n");
        b.append(" * {@code methods.yaml} by {@code CliCatalogueTest}, which fails when this file and the catalogue\n");
        b.append(" * differ and rewrites it when run with {@code -Dmemoryd.cli.write=true}; do not edit by hand.\n");
        b.append(" */\n");
        b.append("final class MethodSummaries {\n");
        b.append("    private MethodSummaries() {}\n");
        for (MethodSpec m : cat.methods()) {
            b.append("\n    /** {@code ").append(m.name()).append("}. */\n");
            b.append("    static final String ")
                    .append(constant(m.name()))
                    .append(" = \"")
                    .append(m.summary().replace("\\", "\\\\").replace("\"", "\\\""))
                    .append("\";\n");
        }
        b.append("}\n");
        return b.toString();
    }

    /** {@code slices.create} as {@code SLICES_CREATE}. */
    static String constant(String method) {
        return method.replace('.', '_').toUpperCase(Locale.ROOT);
    }

    private static CommandSpec command(String words) {
        CommandLine cl = TREE;
        for (String w : words.split(" ")) {
            cl = cl.getSubcommands().get(w);
            assertNotNull(cl, "no command `memoryd " + words + "`");
        }
        return cl.getCommandSpec();
    }

    @Test
    void everyMethod_hasACommand_orIsSocketOnlyWithAReason() {
        List<String> missing = new ArrayList<>();
        for (MethodSpec m : MethodCatalogue.get().methods()) {
            boolean cli = COMMAND.containsKey(m.name());
            boolean socket = SOCKET_ONLY.containsKey(m.name());
            assertFalse(cli && socket, m.name() + " has a command and is on the socket-only list");
            if (!cli && !socket) {
                missing.add(m.name());
            }
        }
        assertEquals(
                List.of(),
                missing,
                "methods with no command: add one (daemon/.../cli) or put them on SOCKET_ONLY with the reason");
        Set<String> known = new TreeSet<>(MethodCatalogue.get().names());
        assertTrue(known.containsAll(COMMAND.keySet()), "COMMAND names a method the catalogue lacks");
        assertTrue(known.containsAll(SOCKET_ONLY.keySet()), "SOCKET_ONLY names a method the catalogue lacks");
        SOCKET_ONLY.forEach((m, why) -> assertTrue(why.length() > 20, m + ": say why it has no command"));
        COMMAND.values().forEach(CliCatalogueTest::command);
    }

    @Test
    void everyInputOfAMethodsCommand_namesAParameterTheMethodDeclares() {
        List<String> wrong = new ArrayList<>();
        for (MethodSpec m : MethodCatalogue.get().methods()) {
            String words = COMMAND.get(m.name());
            if (words == null) {
                continue;
            }
            CommandSpec spec = command(words);
            Map<String, String> standsFor = STANDS_FOR.getOrDefault(words, Map.of());
            List<String> inputs = new ArrayList<>();
            for (OptionSpec o : spec.options()) {
                inputs.add(o.longestName().replaceFirst("^-+", ""));
            }
            for (PositionalParamSpec p : spec.positionalParameters()) {
                inputs.add(p.paramLabel().replaceAll("[<>.]", ""));
            }
            for (String input : inputs) {
                String param = input.replace('-', '_');
                if (!CLI_INPUTS.contains(input) && !standsFor.containsKey(input) && !m.takes(param)) {
                    wrong.add("memoryd " + words + ": " + input + " (" + m.name() + " takes " + m.paramNames() + ")");
                }
            }
            for (String input : standsFor.keySet()) {
                assertTrue(inputs.contains(input), "memoryd " + words + " has no input " + input + " any more");
            }
        }
        assertEquals(List.of(), wrong, "command inputs that name no parameter of their method");
    }

    @Test
    void committedSummaries_areWhatTheCatalogueSays() throws Exception {
        MethodCatalogue cat = MethodCatalogue.get();
        if (Boolean.getBoolean("memoryd.cli.write")) {
            Files.writeString(SUMMARIES, summariesSource(cat), StandardCharsets.UTF_8);
        }
        // Compared as values, not as text: the formatter may wrap the generated lines.
        Map<String, String> committed = new java.util.TreeMap<>();
        for (java.lang.reflect.Field f :
                Class.forName("dev.memoryd.daemon.cli.MethodSummaries").getDeclaredFields()) {
            f.setAccessible(true);
            committed.put(f.getName(), (String) f.get(null));
        }
        Map<String, String> expected = new java.util.TreeMap<>();
        cat.methods().forEach(m -> expected.put(constant(m.name()), m.summary()));
        assertEquals(
                expected,
                committed,
                SUMMARIES + " differs from the catalogue; regenerate it with mvn -q -o -pl daemon -am test"
                        + " -Dtest=CliCatalogueTest -Dmemoryd.cli.write=true -Dsurefire.failIfNoSpecifiedTests=false,"
                        + " then mvn -q -o spotless:apply");
    }

    @Test
    void aMethodsCommand_opensItsDescriptionWithTheMethodsSummary() {
        List<String> wrong = new ArrayList<>();
        for (MethodSpec m : MethodCatalogue.get().methods()) {
            String words = COMMAND.get(m.name());
            if (words == null) {
                continue;
            }
            String[] description = command(words).usageMessage().description();
            if (description.length == 0 || !description[0].equals(m.summary())) {
                wrong.add("memoryd " + words + " (" + m.name() + ")");
            }
        }
        assertEquals(
                List.of(),
                wrong,
                "commands whose description does not open with MethodSummaries.<METHOD> (their method's summary)");
    }
}
