/** memoryd ledger. */
package dev.memoryd.ledger;
