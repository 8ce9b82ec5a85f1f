/**
 * SlicePolicy v1 context selection (spec {@code slice-policy-v1.md}), pure and deterministic.
 *
 * <p>Entry points: {@link dev.memoryd.grammar.policy.ContextSelector#select} (the §5 algorithm,
 * returning the §6.1 SliceExport; its Javadoc lists how loose points of the spec were
 * resolved), {@link dev.memoryd.grammar.policy.ConversationDag} and
 * {@link dev.memoryd.grammar.policy.Turn} (the input model, with strict JSON parsing),
 * {@link dev.memoryd.grammar.policy.PolicyConfig} (parameters, defaults and
 * {@code policy_params_hash}), {@link dev.memoryd.grammar.policy.XxHash64}, and
 * {@link dev.memoryd.grammar.policy.PolicyInputException} (errors naming the field).
 */
package dev.memoryd.grammar.policy;
