package dev.memoryd.daemon.write;

import java.util.Locale;
import java.util.Optional;

/**
 * When a declaration's reply is sent. Either way the declaration becomes its own commit, and a
 * crash after the reply never loses it; the levels differ in what is on disk at the moment of the
 * reply.
 */
public enum Durability {
    /**
     * The reply comes once the declaration's ledger lines are forced to disk, its files are in
     * place, its commit is on the branch and git's index records it (the default).
     */
    COMMIT,
    /**
     * The reply comes once the declaration's ledger lines are forced to disk (the ledger is the
     * write-ahead log); the writer places its files, moves the branch and writes the index right
     * after, before it takes another batch. Reads made after the reply wait for that. A crash in
     * between is redone by the next start from the ledger, as for any declaration whose lines
     * reached the ledger.
     */
    LEDGER;

    /** The name on the wire and on the command line. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The level named {@code s} ({@code commit} or {@code ledger}); empty for anything else. */
    public static Optional<Durability> fromWire(String s) {
        for (Durability d : values()) {
            if (d.wireName().equals(s)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }
}
