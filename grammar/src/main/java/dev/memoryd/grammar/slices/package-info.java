/**
 * Slices v1 (docs/specs/slices-v1.md): pure parsing and validation of {@code .slice} files and
 * the {@code slice:} frontmatter of memory files.
 *
 * <ul>
 * <li>{@link dev.memoryd.grammar.slices.SliceFile}: frontmatter and body of a file;</li>
 * <li>{@link dev.memoryd.grammar.slices.SliceValidator}: field rules with stable ids and field paths;</li>
 * <li>{@link dev.memoryd.grammar.slices.Relations}, {@link dev.memoryd.grammar.slices.LinkGraph}:
 *     the relationship table and exploration with inference;</li>
 * <li>{@link dev.memoryd.grammar.slices.Staleness}: hash- and time-based staleness;</li>
 * <li>{@link dev.memoryd.grammar.slices.JsonlBody}, {@link dev.memoryd.grammar.slices.Contract}:
 *     append-only JSONL rows with supersession and contract enforcement.</li>
 * </ul>
 */
package dev.memoryd.grammar.slices;
