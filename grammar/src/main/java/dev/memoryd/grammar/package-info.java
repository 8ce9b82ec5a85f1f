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
 * <p>Sub-packages include {@code dev.memoryd.grammar.policy} (SlicePolicy v1 context selection).
 * RFC 8785 canonical JSON is {@link dev.memoryd.jcs.Jcs}, in the {@code jcs} module.
 */
package dev.memoryd.grammar;
