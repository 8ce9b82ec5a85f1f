package dev.memoryd.daemon.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@link FastArgs} against picocli: argument vectors made from picocli's model of each everyday
 * command (every option under each of its names, {@code --opt=v} and {@code --opt v}, values of
 * the option's type in plain and odd forms, repeats, missing values, too few and too many
 * positional parameters, help, version, argument files) either parse to the field values picocli
 * binds or are declined. Nothing here lists the commands' options: a new option shows up in the
 * vectors, and the fast path must then either learn it or decline every vector that uses it.
 */
class FastArgsTest {
    @Test
    void everyVectorFromPicoclisModel_parsesAsPicocliParsesIt_orIsDeclined() throws Exception {
        // One tree for every vector (building one is slow): picocli resets every option to its
        // initial value before each parse, and each result is compared before the next parse.
        CommandLine tree = RootCommand.commandLine();
        int accepted = 0;
        int declined = 0;
        for (String name : FastArgs.COMMANDS) {
            for (List<String> v : vectors(name)) {
                String[] args = v.toArray(String[]::new);
                Callable<Integer> fast = FastArgs.parse(args);
                if (fast == null) {
                    declined++;
                    continue;
                }
                accepted++;
                Object picocli = picocliParse(tree, args);
                if (picocli == null) {
                    fail("the fast path accepts what picocli refuses or answers with help: " + v);
                }
                assertSame(picocli.getClass(), fast.getClass(), v.toString());
                assertSameBindings(picocli, fast, v);
            }
        }
        assertTrue(accepted > 100 && declined > 100, accepted + " accepted, " + declined + " declined");
    }

    @Test
    void everyOptionOfEveryEverydayCommand_inItsPlainForms_takesTheFastPath() {
        for (String name : FastArgs.COMMANDS) {
            CommandSpec spec = spec(name);
            List<String> base = positionalsOf(spec, minPositionals(spec));
            assertNotNull(FastArgs.parse(cat(List.of(name), base).toArray(String[]::new)), name);
            for (OptionSpec o : options(spec)) {
                for (String n : o.names()) {
                    List<List<String>> forms = o.arity().max() == 0
                            ? List.of(List.of(n))
                            : List.of(List.of(n, plain(o)), List.of(n + "=" + plain(o)));
                    for (List<String> form : forms) {
                        List<String> v = cat(cat(List.of(name), form), base);
                        assertNotNull(
                                FastArgs.parse(v.toArray(String[]::new)),
                                "declined, though picocli takes it plainly (teach FastArgs this option): " + v);
                    }
                }
            }
        }
    }

    @Test
    void helpVersionOtherCommandsAndNoCommand_areLeftToPicocli() {
        assertNull(FastArgs.parse());
        assertNull(FastArgs.parse("--version"));
        assertNull(FastArgs.parse("lint"));
        assertNull(FastArgs.parse("help", "ping"));
        assertNull(FastArgs.parse("ping", "--help"));
        assertNull(FastArgs.parse("read", "-h"));
        assertNull(FastArgs.parse("ping", "-V"));
        assertNotNull(FastArgs.parse("ping"));
    }

    /** The user object picocli binds {@code args} to, or null when it refuses them or asks for help. */
    private static Object picocliParse(CommandLine tree, String[] args) {
        ParseResult r;
        try {
            r = tree.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            return null;
        }
        if (r.isUsageHelpRequested() || r.isVersionHelpRequested() || !r.hasSubcommand()) {
            return null;
        }
        ParseResult sub = r.subcommand();
        if (sub.isUsageHelpRequested() || sub.isVersionHelpRequested() || sub.hasSubcommand()) {
            return null;
        }
        return sub.commandSpec().userObject();
    }

    /** Every {@code @Option} and {@code @Parameters} field, mixins' too, holds equal values in both. */
    private static void assertSameBindings(Object picocli, Object fast, List<String> args) throws Exception {
        for (Class<?> c = picocli.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                f.setAccessible(true);
                if (f.isAnnotationPresent(CommandLine.Mixin.class)) {
                    assertSameBindings(f.get(picocli), f.get(fast), args);
                } else if (f.isAnnotationPresent(CommandLine.Option.class)
                        || f.isAnnotationPresent(CommandLine.Parameters.class)) {
                    Object p = f.get(picocli);
                    Object q = f.get(fast);
                    if (!Objects.equals(p, q)) {
                        fail(c.getSimpleName() + "." + f.getName() + ": picocli " + p + ", fast " + q + " for " + args);
                    }
                }
            }
        }
    }

    private static final CommandLine TREE = RootCommand.commandLine();

    private static CommandSpec spec(String name) {
        return TREE.getSubcommands().get(name).getCommandSpec();
    }

    /** The command's options but picocli's own help and version options. */
    private static List<OptionSpec> options(CommandSpec spec) {
        return spec.options().stream()
                .filter(o -> !o.usageHelp() && !o.versionHelp())
                .toList();
    }

    private static int minPositionals(CommandSpec spec) {
        return spec.positionalParameters().stream()
                .mapToInt(p -> p.arity().min())
                .sum();
    }

    private static int maxPositionals(CommandSpec spec) {
        int max = 0;
        for (PositionalParamSpec p : spec.positionalParameters()) {
            max = p.arity().isUnspecified() || p.arity().max() == Integer.MAX_VALUE
                    ? 3
                    : max + p.arity().max();
        }
        return max;
    }

    private static List<String> positionalsOf(CommandSpec spec, int n) {
        List<String> p = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            p.add("users/p" + i + ".md");
        }
        return p;
    }

    /** A value picocli converts for the option's type, in the plainest form. */
    private static String plain(OptionSpec o) {
        return samples(o).get(0);
    }

    /** Values for the option's type: the plain form first, then forms the fast path may decline. */
    private static List<String> samples(OptionSpec o) {
        Class<?> t = o.isMultiValue() ? String.class : o.type();
        if (t == int.class || t == Integer.class) {
            return List.of("7", "0", "123456789", "010", "0x1f", "+3", "-3", "x", "2147483648", "");
        }
        if (t == double.class || t == Double.class) {
            return List.of("1.5", "2", "0.25", "1e3", ".5", "5.", "-0.5", "NaN", "x", "");
        }
        if (t == Path.class) {
            return List.of("some/file.json", "", "a b", "-p", "@p", "/abs/x");
        }
        return List.of("v", "", "two words", "a=b", "-x", "--json", "@f", "ping", "§ ü");
    }

    /** Argument vectors for command {@code name}, made from picocli's model of it. */
    private static Set<List<String>> vectors(String name) {
        CommandSpec spec = spec(name);
        List<String> cmd = List.of(name);
        int min = minPositionals(spec);
        int max = maxPositionals(spec);
        List<String> base = positionalsOf(spec, min);
        Set<List<String>> out = new LinkedHashSet<>();
        // positional parameters: too few, enough, too many, and odd values
        for (int n = 0; n <= max + 1; n++) {
            out.add(cat(cmd, positionalsOf(spec, n)));
        }
        for (String odd : List.of("-x", "@args", "--", "", "a=b", "--json")) {
            List<String> v = new ArrayList<>(base);
            v.add(odd);
            out.add(cat(cmd, v));
            if (!base.isEmpty()) {
                List<String> w = new ArrayList<>(base);
                w.set(0, odd);
                out.add(cat(cmd, w));
            }
        }
        for (String help : List.of("-h", "--help", "-V", "--version", "-hV", "--jso", "-")) {
            out.add(cat(cat(cmd, List.of(help)), base));
        }
        List<String> all = new ArrayList<>();
        for (OptionSpec o : options(spec)) {
            for (String n : o.names()) {
                if (o.arity().max() == 0) {
                    for (List<String> form : List.of(
                            List.of(n), List.of(n, n), List.of(n + "=true"), List.of(n + "=false"), List.of(n + "="))) {
                        out.add(cat(cat(cmd, form), base));
                        out.add(cat(cat(cmd, base), form));
                    }
                    continue;
                }
                for (String s : samples(o)) {
                    for (List<String> form : List.of(List.of(n, s), List.of(n + "=" + s))) {
                        out.add(cat(cat(cmd, form), base));
                        out.add(cat(cat(cmd, base), form));
                    }
                }
                out.add(cat(cat(cmd, List.of(n, plain(o), n, "w")), base)); // repeated
                out.add(cat(cat(cmd, List.of(n, plain(o), n + "=2")), base));
                out.add(cat(cat(cmd, base), List.of(n))); // value missing at the end
                out.add(cat(cat(cmd, List.of(n, "--json")), base)); // an option where the value goes
                out.add(cat(cmd, List.of(n))); // value and positional parameters missing
            }
            String first = o.names()[0];
            all.addAll(o.arity().max() == 0 ? List.of(first) : List.of(first, plain(o)));
        }
        out.add(cat(cat(cmd, all), base)); // every option at once
        out.add(cat(cat(cmd, base), all));
        return out;
    }

    private static List<String> cat(List<String> a, List<String> b) {
        List<String> r = new ArrayList<>(a);
        r.addAll(b);
        return r;
    }

    @Test
    void vectorsCoverEveryOptionName() {
        for (String name : FastArgs.COMMANDS) {
            Set<String> used = new LinkedHashSet<>();
            vectors(name).forEach(used::addAll);
            for (OptionSpec o : options(spec(name))) {
                assertTrue(used.containsAll(Arrays.asList(o.names())), name + " " + Arrays.toString(o.names()));
            }
            assertFalse(options(spec(name)).isEmpty(), name);
            assertEquals(name, spec(name).name());
        }
    }
}
