package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Option;

/**
 * The provenance options of a command that writes ({@code --source}, {@code --confidence},
 * {@code --context}, {@code --session}), passed to the daemon as the method's parameters, which
 * checks them; recorded only on a root with provenance on.
 */
final class ProvenanceOptions {
    @Option(
            names = "--source",
            description = "how the knowledge was acquired: user-statement, inference or observation"
                    + " (recorded when the root has provenance on)")
    String source;

    @Option(names = "--confidence", description = "how reliable it is, from 0 to 1 (provenance)")
    Double confidence;

    @Option(names = "--context", description = "why, for a human reader (provenance)")
    String context;

    @Option(names = "--session", description = "the session to record (provenance; default: this command's connection)")
    String session;

    /** Adds the options given to {@code params}. */
    void addTo(ObjectNode params) {
        if (source != null) {
            params.put("source", source);
        }
        if (confidence != null) {
            params.put("confidence", confidence);
        }
        if (context != null) {
            params.put("context", context);
        }
        if (session != null) {
            params.put("session_id", session);
        }
    }
}
