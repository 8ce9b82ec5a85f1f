package dev.memoryd.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.MemorydConfig;

/** One benchmark mode: drives the daemon already serving {@code cfg}'s root and puts its figures into {@code out}. */
interface Scenario {
    void run(MemorydConfig cfg, ObjectNode out) throws Exception;
}
