package dev.memoryd.grammar.slices;

/**
 * One finding of {@link SliceValidator} or {@link JsonlBody}.
 *
 * @param fieldPath dotted path of the offending field from the frontmatter root, e.g.
 *                  {@code slice.contract.write}, {@code slice.links[2].rel}; for body rows
 *                  {@code body:<line>} followed by the path inside the row, e.g.
 *                  {@code body:3._meta.id}
 * @param rule      stable rule id (see {@link SliceValidator})
 * @param message   human-readable explanation
 */
public record SliceProblem(String fieldPath, String rule, String message) {}
