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
 * <p>Thread-safety: safe for concurrent use (one {@link Mac} per thread; the memo of recent
 * hashes under its own lock). Immutable but for that memo.
 */
public final class ContentHasher {
    private final int saltVersion;
    private final ThreadLocal<Mac> mac;

    /** Texts at least this long are remembered with their hash. */
    private static final int MEMO_MIN_CHARS = 4096;

    /**
     * Large texts hashed lately and their hashes, a ring: a write to a large section hashes its
     * body before and after, and the next write's "before" is the last one's "after", an equal
     * text made anew. Comparing it costs a fraction of hashing it again.
     */
    private final String[] memoText = new String[4];

    private final String[] memoHash = new String[memoText.length];
    private int memoNext;

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
        boolean memo = canonicalText.length() >= MEMO_MIN_CHARS;
        if (memo) {
            synchronized (memoText) {
                for (int i = 0; i < memoText.length; i++) {
                    String t = memoText[i];
                    if (t != null && t.length() == canonicalText.length() && t.equals(canonicalText)) {
                        return memoHash[i];
                    }
                }
            }
        }
        String h = Hex.encode(mac.get().doFinal(canonicalText.getBytes(StandardCharsets.UTF_8)));
        if (memo) {
            synchronized (memoText) {
                memoText[memoNext] = canonicalText;
                memoHash[memoNext] = h;
                memoNext = (memoNext + 1) % memoText.length;
            }
        }
        return h;
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
