package dev.memoryd.daemon;

/** The JSON of {@code write} declarations the tests send: one or more ops, an agent's rationale. */
final class Decl {
    private Decl() {}

    /** A declaration of {@code ops} (each an op's JSON object), by an agent. */
    static String of(String... ops) {
        return "{\"rationale\":\"test\",\"actor\":\"agent\",\"ops\":[" + String.join(",", ops) + "]}";
    }

    static String appendItem(String path, String section, String item) {
        return "{\"op\":\"append_item\",\"path\":\"" + path + "\",\"section\":\"" + section + "\",\"item\":\"" + item
                + "\"}";
    }

    /** {@code create_entity} of part {@code id} of user sam. */
    static String createPart(String id) {
        return "{\"op\":\"create_entity\",\"user_id\":\"sam\",\"entity_type\":\"part\",\"entity_id\":\"" + id
                + "\",\"title\":\"Part " + id + "\"}";
    }
}
