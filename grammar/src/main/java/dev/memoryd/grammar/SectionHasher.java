package dev.memoryd.grammar;

/** Hashes a section's canonical body (the daemon passes an HMAC under the content key). */
@FunctionalInterface
public interface SectionHasher {
    /** The hash of a canonical body as produced by {@link MemoryDocument#canonicalize}. */
    String hash(String canonicalBody);
}
