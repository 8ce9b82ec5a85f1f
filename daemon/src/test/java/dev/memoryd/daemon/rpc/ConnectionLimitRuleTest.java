package dev.memoryd.daemon.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The connection limit leaves part of the open-file limit to the writer, JGit and the ledger. */
class ConnectionLimitRuleTest {
    @Test
    void clients_getAtMostThreeQuartersOfTheOpenFileLimit_andTheMessageNamesTheFlag() {
        assertEquals(1024, ConnectionLimit.of(1024, 20_000).effective());
        assertEquals(768, ConnectionLimit.of(1024, 1024).effective());
        assertEquals(128, ConnectionLimit.of(1024, 256).effective());
        assertEquals(50, ConnectionLimit.of(50, 256).effective());
        assertEquals(50, ConnectionLimit.of(50, -1).effective());
        assertTrue(ConnectionLimit.of(1024, 256).refusal().contains("--max-connections"));
    }
}
