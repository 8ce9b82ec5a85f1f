/**
 * memoryd's event ledger: HMAC-chained ndjson, one chain per branch (docs/DESIGN.md, "The ledger").
 *
 * <p>Entry points: {@link dev.memoryd.ledger.KeyRing} (key file, HKDF subkeys, content hashes),
 * {@link dev.memoryd.ledger.Ledger} / {@link dev.memoryd.ledger.Chain} (append, sync, dirty
 * segments for Git, read, crash-recovery truncation), {@link dev.memoryd.ledger.Verifier}
 * (independent re-verification), {@link dev.memoryd.jcs.Jcs} (RFC 8785; it lives in the
 * {@code jcs} module, which the grammar uses too), and the values
 * {@link dev.memoryd.ledger.Event}, {@link dev.memoryd.ledger.EventDraft},
 * {@link dev.memoryd.ledger.EventId}, {@link dev.memoryd.ledger.EvidenceToken},
 * {@link dev.memoryd.ledger.BranchName}. {@code docs/AUDITOR.md} is the third-party recipe.
 */
package dev.memoryd.ledger;
