package dev.memoryd.ledger;

import java.util.Objects;

/**
 * A branch name that is also a safe Git ref component path and a safe relative directory
 * path (the ledger stores a branch's chain under {@code ledger/<branch>/}). Follows
 * {@code git check-ref-format}: rejects empty, {@code ..}, a leading or trailing {@code /},
 * {@code //}, control characters (including DEL), space, any of {@code ~ ^ : ? * [ \},
 * {@code @{}, a lone {@code @}, a component starting with {@code .}, and a name or component ending
 * in {@code .lock} or {@code .}. {@code /} inside is allowed ({@code proposals/01J...}).
 * Immutable value.
 */
public record BranchName(String value) implements Comparable<BranchName> {
    public BranchName {
        Objects.requireNonNull(value, "branch name");
        String why = problem(value);
        if (why != null) {
            throw new IllegalArgumentException("invalid branch name \"" + value + "\": " + why);
        }
    }

    /** Parses and validates {@code s}. */
    public static BranchName of(String s) {
        return new BranchName(s);
    }

    private static String problem(String v) {
        if (v.isEmpty()) {
            return "empty";
        }
        if (v.equals("@")) {
            return "\"@\" alone";
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
