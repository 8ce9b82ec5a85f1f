package dev.memoryd.grammar;

import java.util.List;

/**
 * One write operation of a declaration (docs/DESIGN.md, op table). Ops are plain values;
 * {@link OpCodec} reads and writes their JSON form and {@link Declarations} applies them.
 *
 * <p>Every op carries the optional common fields {@code before_hash} (the section hash a
 * client read; null if not given), {@code evidence_refs} (never null, maybe empty) and
 * {@code override_rationale} (null if not given).
 */
public sealed interface Op
        permits CreateEntity, ReplaceSection, AppendSection, AppendItem, CurateItems, TombstoneSection {

    /** The wire name in the {@code op} field, e.g. {@code replace_section}. */
    String opName();

    /** Section hash the client based the op on, or null. */
    String beforeHash();

    /** Evidence tokens the op refers to (never null). */
    List<String> evidenceRefs();

    /** Why a cap may be exceeded, or null. */
    String overrideRationale();

    /** Normalizes a nullable list to an immutable copy. */
    static List<String> list(List<String> l) {
        return l == null ? List.of() : List.copyOf(l);
    }
}
