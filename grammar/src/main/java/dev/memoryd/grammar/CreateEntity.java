package dev.memoryd.grammar;

import java.util.List;

/**
 * {@code create_entity}: creates the overview/profile and the notes.md of a user, part
 * or relationship from the templates.
 *
 * @param userId       the user id
 * @param entityType   user, part or relationship
 * @param entityId     the entity id (null for a user, or equal to the user id)
 * @param title        the H1 title and slice title
 * @param participants two part ids for a relationship, else empty
 * @param sliceIds     two ULIDs supplied by the caller: [profile/overview id, notes id];
 *                     the grammar never generates randomness itself
 */
public record CreateEntity(
        String userId,
        String entityType,
        String entityId,
        String title,
        List<String> participants,
        List<String> sliceIds,
        String beforeHash,
        List<String> evidenceRefs,
        String overrideRationale)
        implements Op {
    public CreateEntity {
        participants = Op.list(participants);
        sliceIds = Op.list(sliceIds);
        evidenceRefs = Op.list(evidenceRefs);
    }

    public CreateEntity(
            String userId,
            String entityType,
            String entityId,
            String title,
            List<String> participants,
            List<String> sliceIds) {
        this(userId, entityType, entityId, title, participants, sliceIds, null, List.of(), null);
    }

    /** The same op with the caller-supplied slice ids filled in. */
    public CreateEntity withSliceIds(List<String> ids) {
        return new CreateEntity(
                userId, entityType, entityId, title, participants, ids, beforeHash, evidenceRefs, overrideRationale);
    }

    @Override
    public String opName() {
        return "create_entity";
    }
}
