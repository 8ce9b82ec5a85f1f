/**
 * memoryd grammar: the pure (no I/O) model of memory files.
 *
 * <ul>
 * <li>{@link dev.memoryd.grammar.Grammar}: file types, sections and templates loaded from
 *     {@code templates/grammar.yaml} and the template texts;</li>
 * <li>{@link dev.memoryd.grammar.MemoryDocument}: parsing with exact offsets, canonical bodies;</li>
 * <li>{@link dev.memoryd.grammar.Linter}: lint rules with stable ids;</li>
 * <li>{@link dev.memoryd.grammar.Op}, {@link dev.memoryd.grammar.OpCodec}: the write ops and their JSON;</li>
 * <li>{@link dev.memoryd.grammar.Declarations}: deterministic application of a declaration;</li>
 * <li>{@link dev.memoryd.grammar.slip}: SLIP agent messages, their nSLIP and JSON forms.</li>
 * </ul>
 *
 * <p>Sub-packages: {@code dev.memoryd.grammar.json} (RFC 8785 canonical JSON) and
 * {@code dev.memoryd.grammar.policy} (SlicePolicy v1 context selection).
 */
package dev.memoryd.grammar;
