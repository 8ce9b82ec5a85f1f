package dev.memoryd.ledger;

import java.util.Objects;

/**
 * A branch name that is also a safe Git ref component path and a safe relative directory
 * path (the ledger stores a branch's chain under {@code ledger/<branch>/}). The one place the
 * rule lives: every edge that takes a branch name constructs one. Follows
 * {@code git check-ref-format --branch}: rejects empty, {@code ..}, a leading or trailing {@code /},
 * {@code //}, control characters (including DEL), space, any of {@code ~ ^ : ? * [ \},
 * {@code @{}, a lone {@code @}, a component starting with {@code .}, and a name or component ending
 * in {@code .lock} or {@code .}; also {@code HEAD}, a leading {@code -}, a {@code refs/} prefix (a
 * branch is named by its short name), a lone surrogate (no UTF-8 form, so no ref or file name),
 * and a name longer than {@value #MAX_BYTES} bytes in UTF-8 (with the {@code refs/memoryd/...}
 * prefixes, replica suffixes and {@code .lock} files made from it, a longer one would near the
 * 255-byte limit of a file name). {@code /} inside is allowed ({@code proposals/01J...}).
 *
 * <p>A chain name may also be replica-qualified: {@code <branch>@<replica>} is the chain of
 * {@code <branch>} that the replica {@code <replica>} writes (see {@link #onReplica}); its events'
 * {@code branch} field holds the branch part. Immutable value.
 */
public record BranchName(String value) implements Comparable<BranchName> {
    /** Longest branch name, in UTF-8 bytes, not counting a replica suffix ({@code @<replica>}). */
    public static final int MAX_BYTES = 100;

    public BranchName {
        Objects.requireNonNull(value, "branch name");
        String why = problem(value);
        if (why != null) {
            // The name itself only when it can be shown: not a lone surrogate, not a screenful.
            boolean show = value.length() <= 2 * MAX_BYTES && dev.memoryd.jcs.Utf16.malformed(value) == null;
            throw new IllegalArgumentException("invalid branch name" + (show ? " \"" + value + "\"" : "") + ": " + why);
        }
    }

    /** Parses and validates {@code s}. */
    public static BranchName of(String s) {
        return new BranchName(s);
    }

    /** A replica id: lowercase letters, digits and {@code -}, 1 to 32, starting with a letter or digit. */
    public static final java.util.regex.Pattern REPLICA = java.util.regex.Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");

    /**
     * The chain {@code replica} writes for this branch: {@code <branch>@<replica>}, or this name
     * itself when {@code replica} is null (the root that made the repository).
     *
     * @throws IllegalArgumentException if {@code replica} is not a valid replica id or this name
     *     is already qualified
     */
    public BranchName onReplica(String replica) {
        if (replica == null) {
            return this;
        }
        if (!REPLICA.matcher(replica).matches()) {
            throw new IllegalArgumentException("invalid replica id \"" + replica + "\": use 1-32 of a-z, 0-9 and -");
        }
        if (replica().isPresent()) {
            throw new IllegalArgumentException("\"" + value + "\" is already a replica's chain");
        }
        return new BranchName(value + "@" + replica);
    }

    /** The replica part of a replica's chain name ({@code main@laptop} → {@code laptop}). */
    public java.util.Optional<String> replica() {
        int at = value.lastIndexOf('@');
        return at > 0 && REPLICA.matcher(value.substring(at + 1)).matches()
                ? java.util.Optional.of(value.substring(at + 1))
                : java.util.Optional.empty();
    }

    /** The branch a chain records: the name without its replica part. */
    public BranchName gitBranch() {
        return replica()
                .map(r -> new BranchName(value.substring(0, value.length() - r.length() - 1)))
                .orElse(this);
    }

    private static String problem(String v) {
        if (v.isEmpty()) {
            return "empty";
        }
        String malformed = dev.memoryd.jcs.Utf16.malformed(v);
        if (malformed != null) {
            return malformed;
        }
        int at = v.lastIndexOf('@');
        String branch = at > 0 && REPLICA.matcher(v.substring(at + 1)).matches() ? v.substring(0, at) : v;
        if (branch.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_BYTES) {
            return "longer than " + MAX_BYTES + " bytes in UTF-8";
        }
        if (v.equals("@")) {
            return "\"@\" alone";
        }
        if (branch.equals("HEAD")) {
            return "\"HEAD\" is not a branch name";
        }
        if (v.startsWith("-")) {
            return "starts with -";
        }
        if (v.startsWith("refs/")) {
            return "starts with refs/ (name a branch by its short name: main, not refs/heads/main)";
        }
        if (v.startsWith("/") || v.endsWith("/")) {
            return "leading or trailing /";
        }
        if (v.contains("//")) {
            return "contains //";
        }
        if (v.contains("..")) {
            return "contains ..";
        }
        if (v.contains("@{")) {
            return "contains @{";
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return "contains a control character";
            }
            if (" ~^:?*[\\".indexOf(c) >= 0) {
                return "contains '" + c + "'";
            }
        }
        for (String component : v.split("/")) {
            if (component.startsWith(".")) {
                return "a component starts with .";
            }
            if (component.endsWith(".lock")) {
                return "a component ends with .lock";
            }
            if (component.endsWith(".")) {
                return "a component ends with .";
            }
        }
        return null;
    }

    @Override
    public int compareTo(BranchName o) {
        return value.compareTo(o.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
