package dev.memoryd.grammar;

/**
 * What one applied op did.
 *
 * @param op            the op
 * @param path          the file it targeted (for create_entity: the overview/profile)
 * @param sectionAnchor the section's anchor slug (H3 subsections: {@code <parent>/<slug>}); null for create_entity
 * @param beforeHash    hash of the section's canonical body before the op; null for create_entity
 * @param afterHash     hash of the canonical body after the op; for create_entity the hash of the
 *                      canonicalized new file as rendered from the template
 * @param summary       the Change Log phrase, e.g. {@code replaced Role}
 * @param changed       whether the op changed any text
 */
public record OpOutcome(
        Op op,
        RepoPath path,
        String sectionAnchor,
        String beforeHash,
        String afterHash,
        String summary,
        boolean changed) {}
