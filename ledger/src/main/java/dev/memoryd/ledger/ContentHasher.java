package dev.memoryd.ledger;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Keyed content hash for {@code before_hash}/{@code after_hash}: lowercase hex
 * HMAC-SHA256 under the content key of one salt version over the UTF-8 bytes of a
 * section's canonical text, so the ledger never exposes plain content hashes.
 *
 * <p>Thread-safety: safe for concurrent use (one {@link Mac} per thread). Immutable.
 */
public final class ContentHasher {
    private final int saltVersion;
    private final ThreadLocal<Mac> mac;

    ContentHasher(int saltVersion, byte[] contentKey) {
        this.saltVersion = saltVersion;
        byte[] key = Arrays.copyOf(contentKey, contentKey.length);
        this.mac = ThreadLocal.withInitial(() -> hmacSha256(key));
        mac.get(); // fail now, not on first use, if HmacSHA256 is unavailable
    }

    /** The salt version whose content key this hasher uses. */
    public int saltVersion() {
        return saltVersion;
    }

    /** Lowercase hex HMAC-SHA256 of {@code canonicalText} (UTF-8) under the content key. */
    public String hash(String canonicalText) {
        Mac m = mac.get();
        return Hex.encode(m.doFinal(canonicalText.getBytes(StandardCharsets.UTF_8)));
    }

    /** A fresh javax.crypto HMAC-SHA256 (JIT intrinsics make it several times faster than BouncyCastle's). */
    static Mac hmacSha256(byte[] key) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            return m;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
