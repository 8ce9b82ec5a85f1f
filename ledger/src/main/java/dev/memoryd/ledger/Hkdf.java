package dev.memoryd.ledger;

import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;

/**
 * HKDF-SHA256 (RFC 5869) through BouncyCastle. Only used when a {@link KeyRing} is built,
 * never per line, so BouncyCastle's slower digest stays off the hot path. Stateless, thread-safe.
 */
final class Hkdf {
    private Hkdf() {}

    /** Extract-then-expand; a null or empty salt means HashLen zero bytes, per RFC 5869 §2.2. */
    static byte[] sha256(byte[] ikm, byte[] salt, byte[] info, int length) {
        HKDFBytesGenerator gen = new HKDFBytesGenerator(new SHA256Digest());
        gen.init(new HKDFParameters(ikm, salt == null || salt.length == 0 ? null : salt, info));
        byte[] out = new byte[length];
        gen.generateBytes(out, 0, length);
        return out;
    }
}
