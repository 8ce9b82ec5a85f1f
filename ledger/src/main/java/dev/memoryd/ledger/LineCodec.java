package dev.memoryd.ledger;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.jcs.Jcs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import javax.crypto.Mac;

/**
 * Encoding of events to stored lines and the line HMAC. Stateless; {@link Mac} arguments are
 * owned by the caller (not thread-safe).
 */
final class LineCodec {
    /** Strict parser: duplicate keys would make "the JSON object" of a line ambiguous. */
    static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** What precedes {@code line_hash}'s value in a canonical line (JCS orders algo < line_hash < prev). */
    private static final byte[] HASH_MARK =
            "\"integrity\":{\"algo\":\"HMAC-SHA256\",\"line_hash\":\"".getBytes(StandardCharsets.US_ASCII);
    /** Length of the member {@code "line_hash":"<64 hex>",} that the HMAC input omits. */
    private static final int HASH_MEMBER_LEN = "\"line_hash\":\"".length() + 64 + 2;

    private LineCodec() {}

    /**
     * Signs an unsigned event and returns its stored line. JCS runs once: the HMAC input is the
     * canonical form without {@code line_hash}, and the stored line is that same text with the
     * member {@code "line_hash":"<h>",} inserted after {@code algo} (JCS orders algo, line_hash,
     * prev, salt_version), which is exactly JCS of the signed event.
     */
    static String[] signAndEncode(Mac mac, Event unsigned) {
        String canonical = Jcs.canonicalize(unsigned.toJson(false));
        String hash = Hex.encode(mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8)));
        String mark = "\"integrity\":{\"algo\":\"HMAC-SHA256\",";
        int at = canonical.indexOf(mark);
        if (at < 0) {
            throw new IllegalStateException("canonical event lacks its integrity member");
        }
        int cut = at + mark.length();
        String line = canonical.substring(0, cut) + "\"line_hash\":\"" + hash + "\"," + canonical.substring(cut) + "\n";
        return new String[] {hash, line};
    }

    /** line_hash of an event: HMAC over JCS(event without integrity.line_hash). */
    static String lineHash(Mac mac, Event unsignedOrSigned) {
        return Hex.encode(mac.doFinal(Jcs.canonicalBytes(unsignedOrSigned.toJson(false))));
    }

    /** The fields verification needs, read by streaming over the line (no tree, no record). */
    record Peek(long seq, String chain, String prev, String lineHash, String algo, int saltVersion, String op) {}

    private static final com.fasterxml.jackson.core.JsonFactory FACTORY = new com.fasterxml.jackson.core.JsonFactory();

    /** Reads a line's seq, chain and integrity, checking that it is one well-formed JSON object. */
    static Peek peek(byte[] buf, int off, int len) throws IOException {
        Long seq = null;
        String chain = null;
        String prev = null;
        String lineHash = null;
        String algo = null;
        Integer salt = null;
        String op = null;
        try (com.fasterxml.jackson.core.JsonParser p = FACTORY.createParser(buf, off, len)) {
            if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                throw new IOException("a line must be one JSON object");
            }
            while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                String name = p.getCurrentName();
                com.fasterxml.jackson.core.JsonToken t = p.nextToken();
                switch (name) {
                    case "seq" ->
                        seq = t == com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : null;
                    case "chain" -> chain = t == com.fasterxml.jackson.core.JsonToken.VALUE_STRING ? p.getText() : null;
                    case "op" -> op = t == com.fasterxml.jackson.core.JsonToken.VALUE_STRING ? p.getText() : null;
                    case "integrity" -> {
                        if (t != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                            throw new IOException("integrity must be an object");
                        }
                        while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                            String k = p.getCurrentName();
                            com.fasterxml.jackson.core.JsonToken v = p.nextToken();
                            switch (k) {
                                case "prev" ->
                                    prev = v == com.fasterxml.jackson.core.JsonToken.VALUE_STRING ? p.getText() : null;
                                case "line_hash" ->
                                    lineHash =
                                            v == com.fasterxml.jackson.core.JsonToken.VALUE_STRING ? p.getText() : null;
                                case "algo" ->
                                    algo = v == com.fasterxml.jackson.core.JsonToken.VALUE_STRING ? p.getText() : null;
                                case "salt_version" ->
                                    salt = v == com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT
                                            ? p.getIntValue()
                                            : null;
                                default -> p.skipChildren();
                            }
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            if (p.nextToken() != null) {
                throw new IOException("trailing content after the event object");
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException(e.getOriginalMessage(), e);
        }
        if (seq == null || chain == null || prev == null || lineHash == null || algo == null || salt == null) {
            throw new IOException("missing or mistyped seq, chain or integrity fields");
        }
        if (!lineHash.matches("[0-9a-f]{64}")) {
            throw new IOException("integrity.line_hash is not 64 lowercase hex digits");
        }
        return new Peek(seq, chain, prev, lineHash, algo, salt, op);
    }

    static JsonNode parse(byte[] buf, int off, int len) throws IOException {
        return JSON.readTree(buf, off, len);
    }

    /**
     * Checks a line's HMAC. Fast path: a canonical line with {@code line_hash} cut out is
     * byte-for-byte the HMAC input (removing a member of a canonical object leaves the canonical
     * form of the rest), so no re-serialization is needed. If the bytes are not canonical the
     * HMAC input is rebuilt with {@link Jcs} from the parsed event, which is the definition.
     */
    static boolean verify(Mac mac, byte[] buf, int off, int len, Event parsed) {
        return verify(mac, buf, off, len, parsed.integrity().lineHash(), () -> parsed);
    }

    /** As {@link #verify(Mac, byte[], int, int, Event)}, parsing the full event only if the fast path fails. */
    static boolean verify(
            Mac mac, byte[] buf, int off, int len, String lineHash, java.util.function.Supplier<Event> parsed) {
        byte[] expected = Hex.decode(lineHash);
        int mark = indexOf(buf, off, len, HASH_MARK);
        if (mark >= 0) {
            int cut = mark + "\"integrity\":{\"algo\":\"HMAC-SHA256\",".length();
            int resume = cut + HASH_MEMBER_LEN;
            if (resume <= off + len && buf[resume - 1] == ',') {
                mac.update(buf, off, cut - off);
                mac.update(buf, resume, off + len - resume);
                if (MessageDigest.isEqual(mac.doFinal(), expected)) {
                    return true;
                }
            }
        }
        Event full = parsed.get();
        if (full == null) {
            return false;
        }
        byte[] canonical = Jcs.canonicalBytes(full.toJson(false));
        return MessageDigest.isEqual(mac.doFinal(canonical), expected);
    }

    static int indexOf(byte[] buf, int off, int len, byte[] pat) {
        int end = off + len - pat.length;
        outer:
        for (int i = off; i <= end; i++) {
            if (buf[i] != pat[0]) {
                continue;
            }
            for (int j = 1; j < pat.length; j++) {
                if (buf[i + j] != pat[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
