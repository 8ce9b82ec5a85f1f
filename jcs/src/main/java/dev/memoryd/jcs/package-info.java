/**
 * JSON text rules shared by every module: {@link dev.memoryd.jcs.Jcs}, RFC 8785 canonical JSON
 * (what the ledger's HMACs and the content hashes are computed over), and
 * {@link dev.memoryd.jcs.Utf16}, the well-formed UTF-16 rule every stored string obeys. Pure
 * functions, no I/O; the module depends on Jackson's tree model only.
 */
package dev.memoryd.jcs;
