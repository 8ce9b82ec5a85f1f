package dev.memoryd.daemon.arch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;

/** A service that lets JSON trees through its public signatures, which ArchitectureTest's JSON rule must refuse. */
public final class JsonLeakFixture {
    public ObjectNode answer() {
        return JsonNodeFactory.instance.objectNode();
    }

    public Optional<ObjectNode> maybe() {
        return Optional.empty();
    }

    public void take(JsonNode n) {}

    /** Not API: a private member may use JSON freely. */
    private ObjectNode inside() {
        return answer();
    }
}
