/**
 * SLIP v0.1 messages (docs/specs/slip-v0.1.md): the pure (no I/O) model and its two forms.
 *
 * <ul>
 * <li>{@link dev.memoryd.grammar.slip.Act}, {@link dev.memoryd.grammar.slip.FrameType},
 *     {@link dev.memoryd.grammar.slip.Slot}: the closed vocabularies, coded by position;</li>
 * <li>{@link dev.memoryd.grammar.slip.SlipMessage}: a validated message;</li>
 * <li>{@link dev.memoryd.grammar.slip.Nslip}: the canonical nSLIP wire form and its strict decoder;</li>
 * <li>{@link dev.memoryd.grammar.slip.SlipJson}: the JSON form used by {@code slip.send}/{@code slip.recv};</li>
 * <li>{@link dev.memoryd.grammar.slip.Base62}: the integer digits of nSLIP.</li>
 * </ul>
 */
package dev.memoryd.grammar.slip;
