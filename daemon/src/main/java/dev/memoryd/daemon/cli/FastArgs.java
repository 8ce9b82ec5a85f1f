package dev.memoryd.daemon.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The arguments of the everyday commands ({@link #COMMANDS}) parsed without picocli: building
 * picocli's model of even one command (reflection over its annotations, its converters, some 170
 * classes that the class-data archive cannot hold) costs more than the rest of a {@code ping}.
 *
 * <p>The contract is "the same or nothing": {@link #parse} returns the command with exactly the
 * field values picocli would have bound, or null for anything it does not fully understand (an
 * unknown or repeated option, a missing value, a value that starts with {@code -} or {@code @},
 * a number in any but the plain decimal form, the wrong number of positional parameters,
 * {@code --help}, {@code --version}, argument files, {@code --}), and the caller then hands the
 * arguments to picocli, so help, usage errors and their messages stay picocli's.
 * {@code FastArgsTest} checks this against picocli's model of each command: every option it
 * declares, in every form. Stateless; safe from any thread.
 */
final class FastArgs {
    /** The commands parsed here; any other goes to picocli. */
    static final List<String> COMMANDS = List.of("ping", "read", "write", "search", "scope", "history");

    private FastArgs() {}

    /** {@code args}' command with its options bound as picocli binds them, or null to leave it to picocli. */
    static Callable<Integer> parse(String... args) {
        Printing cmd = args.length == 0 ? null : command(args[0]);
        if (cmd == null) {
            return null;
        }
        cmd.root = Path.of(Common.DEFAULT_ROOT); // picocli's defaults, from the same constants
        cmd.halfLifeDays = Double.parseDouble(Common.DEFAULT_HALF_LIFE_DAYS);
        if (cmd instanceof SearchCmd s) {
            s.limit = Integer.parseInt(SearchCmd.DEFAULT_LIMIT);
        } else if (cmd instanceof HistoryCmd h) {
            h.limit = Integer.parseInt(HistoryCmd.DEFAULT_LIMIT);
        }
        List<String> seen = new ArrayList<>();
        List<String> positional = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("@")) {
                return null; // an argument file, which picocli expands
            }
            if (!a.startsWith("-")) {
                positional.add(a);
                continue;
            }
            int eq = a.startsWith("--") ? a.indexOf('=') : -1;
            String name = eq > 0 ? a.substring(0, eq) : a;
            String value = eq > 0 ? a.substring(eq + 1) : null;
            Arity arity = arity(cmd, name);
            if (arity == null || (arity != Arity.MANY && seen.contains(name))) {
                return null; // unknown (help, version, a typo, a cluster) or repeated: picocli says what
            }
            seen.add(name);
            if (arity == Arity.FLAG) {
                if (value != null) {
                    return null; // --json=true: picocli's to accept or refuse
                }
                cmd.out.on = true; // --json, the only flag
                continue;
            }
            if (value == null) {
                if (i + 1 == args.length) {
                    return null;
                }
                value = args[++i];
            }
            if (value.startsWith("-") || value.startsWith("@") || !option(cmd, name, value)) {
                return null;
            }
        }
        return positionals(cmd, positional) ? callable(cmd) : null;
    }

    @SuppressWarnings("unchecked") // each of command()'s commands is a Callable<Integer>
    private static Callable<Integer> callable(Printing cmd) {
        return (Callable<Integer>) cmd;
    }

    private enum Arity {
        FLAG,
        ONE,
        MANY
    }

    private static Printing command(String name) {
        return switch (name) {
            case "ping" -> new PingCmd();
            case "read" -> new ReadCmd();
            case "write" -> new WriteCmd();
            case "search" -> new SearchCmd();
            case "scope" -> new ScopeCmd();
            case "history" -> new HistoryCmd();
            default -> null;
        };
    }

    /** How many values option {@code name} of {@code cmd} takes; null when it has no such option. */
    private static Arity arity(Printing cmd, String name) {
        if (name.equals("--json")) {
            return Arity.FLAG;
        }
        if (cmd instanceof ScopeCmd && name.equals("--minus")) {
            return Arity.MANY;
        }
        return List.of(COMMON).contains(name) || List.of(own(cmd)).contains(name) ? Arity.ONE : null;
    }

    private static final String[] COMMON = {"--root", "--key-file", "--templates", "--half-life-days"};

    /** The single-valued options of {@code cmd} beyond {@link #COMMON}'s. */
    private static String[] own(Printing cmd) {
        if (cmd instanceof ReadCmd) {
            return new String[] {"--section", "--at"};
        } else if (cmd instanceof WriteCmd) {
            return new String[] {"--file", "--source", "--confidence", "--context", "--session"};
        } else if (cmd instanceof SearchCmd) {
            return new String[] {"--limit", "--source"};
        } else if (cmd instanceof ScopeCmd) {
            return new String[] {"--at", "--limit", "--offset"};
        } else if (cmd instanceof HistoryCmd) {
            return new String[] {"--section", "--limit", "--branch"};
        }
        return new String[0];
    }

    /** Binds {@code value} to option {@code name}; false when picocli must judge the value. */
    private static boolean option(Printing cmd, String name, String value) {
        switch (name) {
            case "--root":
                return (cmd.root = path(value)) != null;
            case "--key-file":
                return (cmd.keyFile = path(value)) != null;
            case "--templates":
                return (cmd.templates = path(value)) != null;
            case "--half-life-days":
                Double d = decimal(value);
                if (d != null) {
                    cmd.halfLifeDays = d;
                }
                return d != null;
            default:
                break;
        }
        if (name.equals("--limit") || name.equals("--offset")) {
            Integer n = integer(value);
            if (n == null) {
                return false;
            } else if (cmd instanceof SearchCmd s) {
                s.limit = n;
            } else if (cmd instanceof HistoryCmd h) {
                h.limit = n;
            } else if (name.equals("--limit")) {
                ((ScopeCmd) cmd).limit = n;
            } else {
                ((ScopeCmd) cmd).offset = n;
            }
            return true;
        }
        if (cmd instanceof ReadCmd r) {
            if (name.equals("--section")) {
                r.section = value;
            } else {
                r.at = value;
            }
        } else if (cmd instanceof WriteCmd w) {
            switch (name) {
                case "--file" -> {
                    return (w.file = path(value)) != null;
                }
                case "--confidence" -> {
                    return (w.provenance.confidence = decimal(value)) != null;
                }
                case "--source" -> w.provenance.source = value;
                case "--context" -> w.provenance.context = value;
                default -> w.provenance.session = value;
            }
        } else if (cmd instanceof SearchCmd s) {
            s.source = value;
        } else if (cmd instanceof ScopeCmd s) {
            if (name.equals("--at")) {
                s.at = value;
            } else {
                if (s.minus.isEmpty()) {
                    s.minus = new ArrayList<>();
                }
                s.minus.add(value);
            }
        } else if (cmd instanceof HistoryCmd h) {
            if (name.equals("--section")) {
                h.section = value;
            } else {
                h.branch = value;
            }
        }
        return true;
    }

    /** Binds the positional parameters; false when their number is not the command's. */
    private static boolean positionals(Printing cmd, List<String> p) {
        if (cmd instanceof ScopeCmd s) {
            s.scopes = p;
            return !p.isEmpty();
        }
        String only = p.size() == 1 ? p.get(0) : null;
        if (cmd instanceof ReadCmd r) {
            r.path = only;
        } else if (cmd instanceof SearchCmd s) {
            s.q = only;
        } else if (cmd instanceof HistoryCmd h) {
            h.path = only;
        } else {
            return p.isEmpty();
        }
        return only != null;
    }

    private static Path path(String s) {
        try {
            return Path.of(s);
        } catch (InvalidPathException e) {
            return null; // picocli names the bad value
        }
    }

    /** A plain decimal ({@code 90}, {@code 0.5}); null for any other form, which picocli judges. */
    private static Double decimal(String s) {
        int dot = s.indexOf('.');
        if (!digits(dot < 0 ? s : s.substring(0, dot)) || (dot >= 0 && !digits(s.substring(dot + 1)))) {
            return null;
        }
        return Double.valueOf(s);
    }

    /** A plain decimal int without leading zeros; null for any other form, which picocli judges. */
    private static Integer integer(String s) {
        if (!digits(s) || s.length() > 9 || (s.length() > 1 && s.charAt(0) == '0')) {
            return null;
        }
        return Integer.valueOf(s);
    }

    private static boolean digits(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
