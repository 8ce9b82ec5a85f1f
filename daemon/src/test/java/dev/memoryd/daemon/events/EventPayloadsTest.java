package dev.memoryd.daemon.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.grammar.GrammarEdit;
import dev.memoryd.grammar.SectionKind;
import dev.memoryd.jcs.Jcs;
import dev.memoryd.ledger.Event;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Typed payloads read what the writer recorded: {@code branch_fork} and {@code declare} also
 * re-serialise to the canonical bytes of the payloads they were read from (the ledger's HMAC chain
 * and replay depend on those bytes, so every shape memoryd has written is here); every other op
 * read back parses from a payload the writer recorded, and is empty, not an exception, without a
 * field it needs.
 */
class EventPayloadsTest {
    private static final ObjectMapper M = new ObjectMapper();

    /** Every shape of {@code branch_fork} payload, as the ledger holds them. */
    static final List<String> FORKS = List.of(
            // branch.create from a commit that records a ledger head
            "{\"link\":{\"branch\":\"main\",\"seq\":7,\"line_hash\":\"9f2c\"},"
                    + "\"fork\":{\"from\":\"main\",\"from_commit\":\"0123456789abcdef0123456789abcdef01234567\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AB\",\"index\":0,\"count\":1}}",
            // branch.create from a commit that records none
            "{\"fork\":{\"from\":\"0123abcd\",\"from_commit\":\"0123abcd89abcdef0123456789abcdef01234567\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AC\",\"index\":0,\"count\":1}}",
            // a replica's first line of its chain of a branch
            "{\"link\":{\"branch\":\"main@a\",\"seq\":12,\"line_hash\":\"77aa\"},"
                    + "\"fork\":{\"from\":\"main\",\"from_commit\":\"1111111111111111111111111111111111111111\","
                    + "\"recorded_commit\":\"2222222222222222222222222222222222222222\",\"replica\":\"b\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AD\",\"index\":0,\"count\":1}}",
            // a replica's fork that names the replica but not the commit the linked line recorded
            "{\"link\":{\"branch\":\"main\",\"seq\":3,\"line_hash\":\"5e5e\"},"
                    + "\"fork\":{\"from\":\"main\",\"from_commit\":\"3333333333333333333333333333333333333333\","
                    + "\"replica\":\"c\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AG\",\"index\":0,\"count\":1}}");

    /** Every shape of {@code declare} payload, as the ledger holds them. */
    static final List<String> DECLARES = List.of(
            // a named chunk with a spec, an ordered placement and a plain one, in a declaration of two
            "{\"chunk\":{\"id\":\"01JDZ00000000000000000000A\",\"name\":\"session\","
                    + "\"spec\":{\"ordered\":true,\"accepts\":[\"prompt\"],\"required\":[\"program\"],"
                    + "\"unique\":[\"name\"],\"propagate\":true},"
                    + "\"body\":{\"text\":\"A sequence\",\"n\":3,\"nested\":{\"a\":[1,2.5,null,true]}},"
                    + "\"placements\":[{\"scope\":\"01JDZ00000000000000000000B\",\"type\":\"instance\",\"seq\":1},"
                    + "{\"scope\":\"01JDZ00000000000000000000C\",\"type\":\"relates\"}],"
                    + "\"created_at\":\"2026-11-26T00:00:00Z\",\"last_updated\":\"2026-11-26T00:00:01Z\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AB\",\"index\":1,\"count\":2}}",
            // an unnamed chunk with no spec and no placements, recorded with the writer's provenance
            "{\"chunk\":{\"id\":\"01JDZ00000000000000000000D\",\"name\":null,\"spec\":{},\"body\":{},"
                    + "\"placements\":[],\"created_at\":\"2026-11-26T00:00:00Z\","
                    + "\"last_updated\":\"2026-11-26T00:00:00Z\"},"
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AE\",\"index\":0,\"count\":1},"
                    + "\"provenance\":{\"agent\":\"claude\",\"session\":\"s-1\",\"source\":\"mcp\"}}",
            // a removal
            "{\"removed\":\"01JDZ00000000000000000000A\",\"removed_at\":\"2026-11-26T00:00:02Z\","
                    + "\"decl\":{\"id\":\"01JDZ0000000000000000000AF\",\"index\":0,\"count\":1}}");

    @Test
    void everyDeclareShape_reserialisesToTheSameCanonicalBytes() throws Exception {
        for (String line : DECLARES) {
            JsonNode recorded = M.readTree(line);
            DeclarePayload p = EventPayloads.declare(recorded).orElseThrow();
            assertEquals(Jcs.canonicalize(recorded), Jcs.canonicalize(p.toJson()), line);
        }
        assertTrue(EventPayloads.declare(M.readTree(DECLARES.get(2))).orElseThrow() instanceof DeclarePayload.Removed);
        // A chunk memoryd recorded that does not parse is a fault to hear of, not a shape to skip.
        assertThrows(
                RuntimeException.class, () -> EventPayloads.declare(M.readTree("{\"chunk\":{\"name\":\"no id\"}}")));
    }

    @Test
    void everyForkShape_reserialisesToTheSameCanonicalBytes() throws Exception {
        for (String line : FORKS) {
            JsonNode recorded = M.readTree(line);
            ForkPayload p = EventPayloads.fork(recorded).orElseThrow();
            assertEquals(Jcs.canonicalize(recorded), Jcs.canonicalize(p.toJson()), line);
        }
    }

    @Test
    void aForkPayload_readsItsLinkAndReplica() throws Exception {
        ForkPayload replica = EventPayloads.fork(M.readTree(FORKS.get(2))).orElseThrow();
        assertEquals(new ForkPayload.Link("main@a", 12, "77aa"), replica.link());
        assertEquals("2222222222222222222222222222222222222222", replica.recordedCommit());
        assertEquals("b", replica.replica());
        ForkPayload unlinked = EventPayloads.fork(M.readTree(FORKS.get(1))).orElseThrow();
        assertNull(unlinked.link());
        assertNull(unlinked.recordedCommit());
    }

    @Test
    void aPayloadWithoutItsForkFields_isNotAFork_ratherThanAnException() throws Exception {
        assertTrue(EventPayloads.fork(M.readTree("{\"link\":{\"branch\":\"main\"}}"))
                .isEmpty());
        assertTrue(EventPayloads.fork(M.readTree("{\"fork\":{\"from\":3}}")).isEmpty());
    }

    @Test
    void aDecl_isAnIndexWithinItsCount() {
        assertThrows(IllegalArgumentException.class, () -> new Decl("d", 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Decl("d", -1, 2));
        assertEquals(new Decl("d", 0, 1), Decl.single("d"));
    }

    /**
     * One payload of each op memoryd reads back, as the writer recorded it: copied from the
     * ledgers this module's daemon tests wrote (slip, section locks, key rotation, proposals,
     * human edits, file references, promotions, branches, slices, conversations).
     */
    static final Map<String, String> RECORDED = Map.ofEntries(
            Map.entry(
                    "key_rotate",
                    "{\"current\":2,\"decl\":{\"count\":1,\"id\":\"01M8B86M3GAFN7769WHMBDMMH3\",\"index\":0},\"retired\":1}"),
            Map.entry(
                    "section_lock",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B8878CC30JWK4Q5V3HRNGM\",\"index\":0},\"locked\":false,\"locked_sections\":[],\"section\":\"role\"}"),
            Map.entry(
                    "slip_send",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B86ZPYYA20TY9RZS8BQE91\",\"index\":0},\"message\":{\"act\":\"INFORM\",\"conv_id\":3,\"dst\":9,\"frame\":\"OBSERVATION\",\"slots\":{\"STATUS\":\"turn 1\"},\"src\":0,\"turn\":1},\"nslip\":\"@a1|f2|c3|S0|d9|T1|u\\\"turn 1\\\"#\"}"),
            Map.entry(
                    "slip_deliver",
                    "{\"agent\":2,\"decl\":{\"count\":1,\"id\":\"01M8B871E3X16TYV2EQT6P9WCB\",\"index\":0},\"event_ids\":[\"01M8B871D905T032J1REZ3J63B\"]}"),
            Map.entry(
                    "drift_flagged_edit",
                    "{\"decl\":{\"count\":2,\"id\":\"01M8B8760TWPPV8KZ3T9SGPP6W\",\"index\":1},\"drift\":{\"id\":\"01M8B8760TWPPV8KZ3T9SGPP6V\",\"kind\":\"grammar_broken\",\"problems\":[{\"line\":1,\"message\":\"no file type of the grammar matches path 'users/sam/todo.md'\",\"rule\":\"file-type-unknown\"}],\"reason\":\"line 1: no file type of the grammar matches path 'users/sam/todo.md' (file-type-unknown)\",\"text\":\"buy milk\\n\"},\"human\":{\"source\":\"work_tree\"}}"),
            Map.entry(
                    "drift_flagged_ref",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B86SEVCNCW585BPHWE19MG\",\"index\":0},\"drift\":{\"id\":\"01M8B86SEVCNCW585BPHWE19MF\",\"kind\":\"ref_changed\",\"reason\":\"the referenced file docs/plan.txt in the memory repository changed since its pin at 99c45efca310 (1 commit)\",\"ref\":{\"blob\":\"23ea6215d77528151ac9afc64972caf3b244fe8b\",\"id\":\"01M8B86SA5CTJ5BMP0ZW3SNMPP\",\"new_path\":null,\"path\":\"docs/plan.txt\",\"pinned_blob\":\"6c79041ab88a07c7c76a3bbb9626b1b8cef51647\",\"pinned_commit\":\"99c45efca3105cdc6f9d46b92220aa33923f21c5\",\"repo\":\".\"},\"text\":\"docs/plan.txt changed; newest commit c8823480fd54\"},\"human\":{\"commits\":[{\"author\":\"Sam Human <sam@example.com>\",\"date\":\"2026-11-26T06:20:39Z\",\"id\":\"c8823480fd54dae006fe137149f68d15244bee62\",\"subject\":\"change of plan\"}],\"commits_total\":1,\"repo\":\".\",\"source\":\"git_history\"}}"),
            Map.entry(
                    "drift_resolved_dismiss",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B8769TE476AH1MRRSYD2TP\",\"index\":0},\"drift\":{\"id\":\"01M8B87696FSW989YT4TPKAN2D\",\"resolution\":\"dismiss\",\"text_sha256\":\"b70d7f5649f354b578051470b49e5d8d60d75185e649eef3a9ea64920cb3482f\"}}"),
            Map.entry(
                    "drift_resolved_note",
                    "{\"decl\":{\"count\":2,\"id\":\"01M8B86R6X7AHS8QGDVAHF1AHA\",\"index\":1},\"drift\":{\"id\":\"01M8B86R5CXMCE2NX2HNY5H95H\",\"note\":\"the engine is gone\",\"resolution\":\"retire\"}}"),
            Map.entry(
                    "human_edit_region",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B87ZEQHCRMMHNSB1X6AZ2W\",\"index\":0},\"human\":{\"source\":\"work_tree\"},\"index\":13,\"region\":\"extensions\",\"text\":\"## Extensions\\n<!-- @anchor: extensions v1 -->\\n\\n### Voice notes\\n\\nLists.\\n\"}"),
            Map.entry(
                    "human_edit_whole",
                    "{\"changed\":[\"_head\",\"drafts\",\"focus\",\"inbox\",\"parking-lot\",\"research\"],\"decl\":{\"count\":2,\"id\":\"01M8B8760TWPPV8KZ3T9SGPP6W\",\"index\":0},\"human\":{\"source\":\"work_tree\"},\"text\":\"---\\nslice:\\n  v: \\\"1\\\"\\n  id: 01JC7X000000000000000000Q1\\n  kind: context\\n  title: \\\"Quiet One notes\\\"\\n  summary: \\\"Free-form working notes for Quiet One: inbox, focus, parking lot, research and drafts.\\\"\\n  body:\\n    type: markdown\\n  contract:\\n    purpose: \\\"The single free-form notes container for one entity; durable insights move to the profile.\\\"\\n    format: \\\"Optional canonical H2 sections in fixed order; H3 subsections allowed.\\\"\\n    write: append\\n    overflow: summarize\\n  links:\\n    - rel: part_of\\n      to: 01JC7X00000000000000000005\\n  meta:\\n    user_id: sam\\n    entity_type: part\\n    entity_id: quiet-one\\n    last_updated: 2026-11-07T10:30:00Z\\n---\\n# Quiet One notes\\n\\n## Inbox\\n<!-- @anchor: inbox v1 -->\\n\\n## Focus\\n<!-- @anchor: focus v1 -->\\n\\nGo slowly; ask the critic's permission before approaching.\\n\\n## Parking Lot\\n<!-- @anchor: parking-lot v1 -->\\n\\n## Research\\n<!-- @anchor: research v1 -->\\n\\n## Drafts\\n<!-- @anchor: drafts v1 -->\\n\",\"whole_file\":true}"),
            Map.entry(
                    "proposal_created",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B87XC994GZM1RXWZQQJME8\",\"index\":0},\"proposal\":{\"base\":[{\"hash\":\"9ab22edfb7c109c8a7a561c7285b2c828799e55a319bb40c0c7b274c75d03ebd\",\"path\":\"users/sam/parts/inner-critic/profile.md\",\"section\":\"role\",\"summary\":\"replaced Role\"}],\"branch\":\"proposals/01M8B87XACSR1JDS11MT0ZMEKV\",\"commit\":\"49610764f537f9dbd28006479fe6204edb86bf28\",\"id\":\"01M8B87XACSR1JDS11MT0ZMEKV\",\"ops\":[{\"content\":\"Proposed role.\",\"op\":\"replace_section\",\"path\":\"users/sam/parts/inner-critic/profile.md\",\"section\":\"Role\"}]}}"),
            Map.entry(
                    "proposal_accepted",
                    "{\"decl\":{\"count\":2,\"id\":\"01M8B87XVKZJYPY7P78DHKPJ2M\",\"index\":1},\"proposal\":{\"branch\":\"proposals/01M8B87XS0WXYX7D8GNJR5CVWE\",\"commit\":\"e397539feddf5021b7eca4bd767c86208c2bfcb3\",\"id\":\"01M8B87XS0WXYX7D8GNJR5CVWE\"}}"),
            Map.entry(
                    "proposal_rejected",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B87XET3A92FNP5YD1EX327\",\"index\":0},\"proposal\":{\"branch\":\"proposals/01M8B87XACSR1JDS11MT0ZMEKV\",\"commit\":\"49610764f537f9dbd28006479fe6204edb86bf28\",\"id\":\"01M8B87XACSR1JDS11MT0ZMEKV\",\"note\":\"Sam rewrote it himself\"}}"),
            Map.entry(
                    "grammar_change_promote",
                    "{\"change\":{\"file_type\":\"part\",\"heading\":\"Voice notes\",\"kind\":\"promote\",\"section_kind\":\"narrative\"},\"decl\":{\"count\":4,\"id\":\"01M8B87ZX6FJ4DTQ07GKBC0W90\",\"index\":0},\"version\":2}"),
            Map.entry(
                    "grammar_change_reject",
                    "{\"change\":{\"file_type\":\"part\",\"heading\":\"Rituals\",\"kind\":\"reject\"},\"decl\":{\"count\":1,\"id\":\"01M8B883V4V876BKJJBE777R8D\",\"index\":0},\"version\":2}"),
            Map.entry(
                    "grammar_change_set_cap",
                    "{\"change\":{\"cap\":\"max_items\",\"file_type\":\"part\",\"kind\":\"set_cap\",\"section\":\"triggers\",\"value\":2},\"decl\":{\"count\":1,\"id\":\"01M8B8814R879JTJ9ZBAJ86DF1\",\"index\":0},\"version\":2}"),
            Map.entry(
                    "grammar_change_set_kind",
                    "{\"change\":{\"file_type\":\"part\",\"kind\":\"set_kind\",\"section\":\"Concerns\",\"section_kind\":\"list\"},\"decl\":{\"count\":1,\"id\":\"01M8B884QM7NN3SEFVHE83FPK1\",\"index\":0},\"version\":2}"),
            Map.entry(
                    "ref_add",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B86SAHVMQSWZYZKQM3JDX5\",\"index\":0},\"slice\":{\"body\":{\"type\":\"none\"},\"id\":\"01M8B86SA5CTJ5BMP0ZW3SNMPP\",\"kind\":\"pointer\",\"meta\":{\"blob\":\"6c79041ab88a07c7c76a3bbb9626b1b8cef51647\",\"created_at\":\"2026-11-26T06:20:39Z\",\"path\":\"docs/plan.txt\",\"pinned_at\":\"2026-11-26T06:20:39Z\",\"pinned_commit\":\"99c45efca3105cdc6f9d46b92220aa33923f21c5\",\"placed_on\":[\"users/sam/overview.md\"],\"ref\":\"git\",\"repo\":\".\",\"section\":\"Current Focus\"},\"payload\":{\"hash\":\"sha256:8c752ee009a5bf1190c8a16e27daa1c126224ad6b6ca74b37ae4c6cf605817c8\",\"size\":7,\"uri\":\"./docs/plan.txt\"},\"summary\":\"docs/plan.txt in the memory repository, pinned at commit 99c45efca310 (blob 6c79041ab88a). Reconciled against Git history with 'memoryd refs reconcile'.\",\"title\":\"Reference: docs/plan.txt\",\"v\":\"1\"}}"),
            Map.entry(
                    "ref_retire",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B8SMBSHA7QF9345GAE8VAP\",\"index\":0},\"slice\":{\"body\":{\"type\":\"none\"},\"id\":\"01M8B8SM28KRFP3V59B45P1V89\",\"kind\":\"pointer\",\"meta\":{\"blob\":\"78981922613b2afb6025042ff6bd878ac1994e85\",\"created_at\":\"2026-11-26T06:30:56Z\",\"path\":\"a.txt\",\"pinned_at\":\"2026-11-26T06:30:56Z\",\"pinned_commit\":\"6cbfad5c9719253cd382bd320fe23b68afd4aeff\",\"placed_on\":[\"users/sam/overview.md\"],\"ref\":\"git\",\"repo\":\"/tmp/junit-7114749592332054939/gone\",\"retired_at\":\"2026-11-26T06:30:57Z\"},\"payload\":{\"hash\":\"sha256:87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7\",\"size\":2,\"uri\":\"git+file:///tmp/junit-7114749592332054939/gone#a.txt\"},\"summary\":\"a.txt in /tmp/junit-7114749592332054939/gone, pinned at commit 6cbfad5c9719 (blob 78981922613b). Reconciled against Git history with 'memoryd refs reconcile'.\",\"title\":\"Reference: a.txt\",\"v\":\"1\"}}"),
            Map.entry(
                    "replace_section",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B8D8GPSM2Q4AM0FBYCDKDS\",\"index\":0},\"op\":{\"content\":\"Ours.\",\"op\":\"replace_section\",\"path\":\"users/sam/overview.md\",\"section\":\"Identity\"}}"),
            Map.entry(
                    "branch_merge",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B8DH4G9S7NGK5HMB5KHBFM\",\"index\":0},\"files\":{\".slices/01M8B8DGJG3JVC9FAY1NY2HBXV.slice\":\"---\\nslice:\\n  v: \\\"1\\\"\\n  id: 01M8B8DGJG3JVC9FAY1NY2HBXV\\n  kind: context\\n  title: x\\n  summary: \\\"Substrate chunk 'x', placed on 1 scope(s).\\\"\\n  body:\\n    type: yaml\\n  meta:\\n    substrate: chunk\\n    name: x\\n    placements:\\n      - scope: 01M8B8DG6DT72NXMAX0FP8P4S7\\n        type: instance\\n    created_at: 2026-11-26T06:24:20Z\\n    last_updated: 2026-11-26T06:24:20Z\\n---\\n{\\\"side\\\":\\\"feature\\\"}\\n\"},\"link\":{\"branch\":\"feature\",\"line_hash\":\"6e0f20c004d105e2be4287b2b9fa80512b81ee1b74bde38bda8de1222265800a\",\"seq\":2},\"merge\":{\"base\":\"8cb6216bb03d674396cf29fbc8866abfc0394e94\",\"from\":\"feature\",\"from_commit\":\"de82a8be64424ceeb17cc00e3a92d2cc88c6f1b8\",\"into_commit\":\"def25036b87bd24ee94530aabe26295665d70551\",\"resolutions\":[]}}"),
            Map.entry(
                    "slice_create",
                    "{\"body\":\"\",\"decl\":{\"count\":1,\"id\":\"01M8B90QZJ7ZMVFHRS5P1PKKWX\",\"index\":0},\"slice\":{\"body\":{\"type\":\"jsonl\"},\"id\":\"01M8B90QZFBPRPE0T6D8T7NTQ5\",\"kind\":\"context\",\"meta\":{\"created_at\":\"2026-11-26T06:34:50Z\"},\"summary\":\"Therapy plan decisions.\",\"title\":\"Decisions\",\"v\":\"1\"}}"),
            Map.entry(
                    "append_row",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B90NMFZJY079MK0ZE6QMKT\",\"index\":0},\"row\":{\"_meta\":{\"created_at\":\"2026-11-01T10:00:00Z\",\"id\":\"a\"},\"text\":\"x\"},\"slice_id\":\"01M8B90NF3929EKCDEG6D29ZHY\"}"),
            Map.entry(
                    "conversation_append",
                    "{\"decl\":{\"count\":1,\"id\":\"01M8B9063V1FC2S401B2K4NBH1\",\"index\":0},\"new_slice\":true,\"session_id\":\"s1\",\"slice_id\":\"01M8B9062PFKNE3E9FY1XXXK71\",\"turns\":[{\"created_at\":\"2026-01-01T00:00:00Z\",\"id\":\"00000000-0000-4000-8000-000000000001\",\"parents\":[],\"phase\":\"planning\",\"role\":\"user\",\"salience\":0.5,\"session_id\":\"s1\",\"trajectory_complexity\":1,\"trajectory_depth\":0,\"trajectory_homogeneity\":0.5,\"trajectory_sibling_order\":0,\"trajectory_temporal\":0.5}]}"));

    private static JsonNode recorded(String name) throws Exception {
        return M.readTree(RECORDED.get(name));
    }

    /** {@code name}'s recorded payload with the field at JSON pointer {@code field} removed. */
    private static JsonNode without(String name, String field) throws Exception {
        JsonNode p = recorded(name);
        int slash = field.lastIndexOf('/');
        JsonNode parent = slash == 0 ? p : p.at(field.substring(0, slash));
        assertTrue(((ObjectNode) parent).remove(field.substring(slash + 1)) != null, name + " has " + field);
        return p;
    }

    @Test
    void aGrammarOp_saysItsFileKeptCrlf_onlyWhenItsLineEndsAreCrlf() throws Exception {
        String op = "\"op\":{\"op\":\"append_item\",\"path\":\"p.md\",\"section\":\"Needs\",\"item\":\"x\"}";
        GrammarOpPayload kept = EventPayloads.grammarOp(M.readTree("{" + op + ",\"line_ends\":\"crlf\"}"))
                .orElseThrow();
        assertTrue(kept.crlf());
        assertEquals("Needs", kept.section());
        assertFalse(
                EventPayloads.grammarOp(M.readTree("{" + op + "}"))
                        .orElseThrow()
                        .crlf(),
                "recorded before");
        assertFalse(EventPayloads.grammarOp(M.readTree("{" + op + ",\"line_ends\":\"lf\"}"))
                .orElseThrow()
                .crlf());
        assertFalse(EventPayloads.grammarOp(M.readTree("{" + op + ",\"line_ends\":1}"))
                .orElseThrow()
                .crlf());
        assertTrue(
                EventPayloads.grammarOp(M.readTree("{\"line_ends\":\"crlf\"}")).isEmpty());
    }

    @Test
    void aKeyRotation_readsBothKeyVersions_andWithoutOneIsEmpty() throws Exception {
        assertEquals(
                new KeyRotatePayload(1, 2),
                EventPayloads.keyRotate(recorded("key_rotate")).orElseThrow());
        assertTrue(EventPayloads.keyRotate(without("key_rotate", "/retired")).isEmpty());
        assertTrue(EventPayloads.keyRotate(without("key_rotate", "/current")).isEmpty());
    }

    @Test
    void aSectionLock_readsItsSectionAndState_andWithoutThemIsEmpty() throws Exception {
        assertEquals(
                new SectionLockPayload("role", false),
                EventPayloads.sectionLock(recorded("section_lock")).orElseThrow());
        assertTrue(
                EventPayloads.sectionLock(without("section_lock", "/section")).isEmpty());
        assertTrue(EventPayloads.sectionLock(without("section_lock", "/locked")).isEmpty());
    }

    @Test
    void slipSendsAndDeliveries_readTheirMessageAndIds_andWithoutThemAreEmpty() throws Exception {
        SlipSendPayload send = EventPayloads.slipSend(recorded("slip_send")).orElseThrow();
        assertEquals(0, send.message().src());
        assertEquals(9, send.message().dst());
        assertTrue(EventPayloads.slipSend(without("slip_send", "/message")).isEmpty());
        assertTrue(EventPayloads.slipSend(without("slip_send", "/message/dst")).isEmpty(), "not a SLIP message");
        assertEquals(
                new SlipDeliverPayload(2, List.of("01M8B871D905T032J1REZ3J63B")),
                EventPayloads.slipDeliver(recorded("slip_deliver")).orElseThrow());
        assertTrue(EventPayloads.slipDeliver(without("slip_deliver", "/agent")).isEmpty());
        assertTrue(
                EventPayloads.slipDeliver(without("slip_deliver", "/event_ids")).isEmpty());
    }

    @Test
    void driftItems_readTheirFields_keepProblemsAndSourceAsRecorded_andWithoutAnIdAreEmpty() throws Exception {
        JsonNode edit = recorded("drift_flagged_edit");
        DriftFlaggedPayload d = EventPayloads.driftFlagged(edit).orElseThrow();
        assertEquals("01M8B8760TWPPV8KZ3T9SGPP6V", d.id());
        assertEquals("grammar_broken", d.kind());
        assertEquals("buy milk\n", d.text());
        assertEquals(edit.at("/drift/problems"), d.problems());
        assertEquals(edit.get("human"), d.human());
        DriftFlaggedPayload ref =
                EventPayloads.driftFlagged(recorded("drift_flagged_ref")).orElseThrow();
        assertEquals("ref_changed", ref.kind());
        assertTrue(ref.problems().isMissingNode(), "a reference's item records no lint problems");
        assertTrue(EventPayloads.driftFlagged(without("drift_flagged_edit", "/drift/id"))
                .isEmpty());
        assertTrue(EventPayloads.driftFlagged(without("drift_flagged_edit", "/drift/text"))
                .isEmpty());

        assertEquals(
                new DriftResolvedPayload(
                        "01M8B87696FSW989YT4TPKAN2D",
                        "dismiss",
                        null,
                        "b70d7f5649f354b578051470b49e5d8d60d75185e649eef3a9ea64920cb3482f"),
                EventPayloads.driftResolved(recorded("drift_resolved_dismiss")).orElseThrow());
        assertEquals(
                "the engine is gone",
                EventPayloads.driftResolved(recorded("drift_resolved_note"))
                        .orElseThrow()
                        .note());
        assertTrue(EventPayloads.driftResolved(without("drift_resolved_note", "/drift/resolution"))
                .isEmpty());
    }

    @Test
    void humanEdits_areARegionOrTheWholeFile_andWithoutTheirTextAreEmpty() throws Exception {
        HumanEditPayload.Region r = (HumanEditPayload.Region)
                EventPayloads.humanEdit(recorded("human_edit_region")).orElseThrow();
        assertEquals("extensions", r.region());
        assertEquals(13, r.index());
        assertTrue(r.text().startsWith("## Extensions\n"));
        HumanEditPayload.WholeFile w = (HumanEditPayload.WholeFile)
                EventPayloads.humanEdit(recorded("human_edit_whole")).orElseThrow();
        assertEquals(List.of("_head", "drafts", "focus", "inbox", "parking-lot", "research"), w.changed());
        assertEquals(recorded("human_edit_whole").get("text").asText(), w.text());
        assertTrue(
                EventPayloads.humanEdit(without("human_edit_region", "/index")).isEmpty());
        assertTrue(
                EventPayloads.humanEdit(without("human_edit_region", "/text")).isEmpty());
        assertTrue(
                EventPayloads.humanEdit(without("human_edit_whole", "/changed")).isEmpty());
    }

    @Test
    void proposals_readTheirIdsAndKeepOpsAndBaseAsRecorded_andWithoutAnIdAreEmpty() throws Exception {
        JsonNode created = recorded("proposal_created");
        ProposalCreatedPayload p = EventPayloads.proposalCreated(created).orElseThrow();
        assertEquals("01M8B87XACSR1JDS11MT0ZMEKV", p.id());
        assertEquals("proposals/01M8B87XACSR1JDS11MT0ZMEKV", p.branch());
        assertEquals("49610764f537f9dbd28006479fe6204edb86bf28", p.commit());
        assertEquals(created.at("/proposal/ops"), p.ops());
        assertEquals(created.at("/proposal/base"), p.base());
        assertTrue(EventPayloads.proposalCreated(without("proposal_created", "/proposal/commit"))
                .isEmpty());
        assertEquals(
                new ProposalClosedPayload("01M8B87XACSR1JDS11MT0ZMEKV", "Sam rewrote it himself"),
                EventPayloads.proposalClosed(recorded("proposal_rejected")).orElseThrow());
        assertNull(EventPayloads.proposalClosed(recorded("proposal_accepted"))
                .orElseThrow()
                .note());
        assertTrue(EventPayloads.proposalClosed(without("proposal_accepted", "/proposal/id"))
                .isEmpty());
    }

    @Test
    void grammarChanges_readEveryKind_andWithoutTheirFieldsAreEmpty() throws Exception {
        assertEquals(
                new GrammarEdit.Promote("part", "Voice notes", SectionKind.NARRATIVE),
                EventPayloads.grammarChange(recorded("grammar_change_promote"))
                        .orElseThrow()
                        .change());
        assertEquals(
                new GrammarEdit.Reject("part", "Rituals"),
                EventPayloads.grammarChange(recorded("grammar_change_reject"))
                        .orElseThrow()
                        .change());
        assertEquals(
                new GrammarEdit.SetCap("part", "triggers", "max_items", 2),
                EventPayloads.grammarChange(recorded("grammar_change_set_cap"))
                        .orElseThrow()
                        .change());
        assertEquals(
                new GrammarEdit.SetKind("part", "Concerns", SectionKind.LIST),
                EventPayloads.grammarChange(recorded("grammar_change_set_kind"))
                        .orElseThrow()
                        .change());
        assertTrue(EventPayloads.grammarChange(without("grammar_change_promote", "/change/section_kind"))
                .isEmpty());
        assertTrue(EventPayloads.grammarChange(without("grammar_change_reject", "/change/heading"))
                .isEmpty());
        assertTrue(EventPayloads.grammarChange(without("grammar_change_set_cap", "/change/value"))
                .isEmpty());
        assertTrue(EventPayloads.grammarChange(without("grammar_change_set_kind", "/change/file_type"))
                .isEmpty());
        JsonNode unknown = recorded("grammar_change_reject");
        ((ObjectNode) unknown.get("change")).put("kind", "rename");
        assertTrue(EventPayloads.grammarChange(unknown).isEmpty());
    }

    @Test
    void fileReferences_keepTheirPointersSliceAsRecorded_andWithoutItAreEmpty() throws Exception {
        for (String name : List.of("ref_add", "ref_retire")) {
            assertEquals(
                    recorded(name).get("slice"),
                    EventPayloads.ref(recorded(name)).orElseThrow().slice(),
                    name);
            assertTrue(EventPayloads.ref(without(name, "/slice")).isEmpty(), name);
        }
    }

    @Test
    void aGrammarOp_isKeptAsRecorded_withTheSectionItNames_andWithoutItIsEmpty() throws Exception {
        GrammarOpPayload op =
                EventPayloads.grammarOp(recorded("replace_section")).orElseThrow();
        assertEquals(recorded("replace_section").get("op"), op.op());
        assertEquals("Identity", op.section());
        assertTrue(EventPayloads.grammarOp(without("replace_section", "/op")).isEmpty());
        assertTrue(EventPayloads.grammarOp(recorded("key_rotate")).isEmpty());
    }

    @Test
    void aMerge_readsItsMergedCommitAndTexts_andWithoutThemIsEmpty() throws Exception {
        JsonNode merge = recorded("branch_merge");
        BranchMergePayload m = EventPayloads.branchMerge(merge).orElseThrow();
        assertEquals(merge.at("/merge/from").asText(), m.from());
        assertEquals(merge.at("/merge/from_commit").asText(), m.fromCommit());
        assertEquals(
                List.of(".slices/01M8B8DGJG3JVC9FAY1NY2HBXV.slice"),
                List.copyOf(m.files().keySet()));
        assertEquals(
                merge.at("/files/.slices~101M8B8DGJG3JVC9FAY1NY2HBXV.slice").asText(),
                m.files().values().iterator().next());
        assertTrue(EventPayloads.branchMerge(without("branch_merge", "/merge/from_commit"))
                .isEmpty());
        assertTrue(EventPayloads.branchMerge(without("branch_merge", "/merge/from"))
                .isEmpty());
        assertTrue(EventPayloads.branchMerge(without("branch_merge", "/files")).isEmpty());
    }

    @Test
    void slicesAndConversations_readTheirIdsAndKeepTheirContentAsRecorded_andWithoutAnIdAreEmpty() throws Exception {
        JsonNode create = recorded("slice_create");
        SliceCreatePayload c = EventPayloads.sliceCreate(create).orElseThrow();
        assertEquals(create.get("slice"), c.slice());
        assertEquals("", c.body());
        assertEquals(
                "",
                EventPayloads.sliceCreate(without("slice_create", "/body"))
                        .orElseThrow()
                        .body());
        assertTrue(EventPayloads.sliceCreate(without("slice_create", "/slice")).isEmpty());
        JsonNode append = recorded("append_row");
        AppendRowPayload row = EventPayloads.appendRow(append).orElseThrow();
        assertEquals("01M8B90NF3929EKCDEG6D29ZHY", row.sliceId());
        assertEquals(append.get("row"), row.row());
        assertTrue(EventPayloads.appendRow(without("append_row", "/slice_id")).isEmpty());
        assertTrue(EventPayloads.appendRow(without("append_row", "/row")).isEmpty());
        JsonNode conv = recorded("conversation_append");
        ConversationAppendPayload a = EventPayloads.conversationAppend(conv).orElseThrow();
        assertEquals("s1", a.sessionId());
        assertTrue(a.newSlice());
        assertSame(conv.get("turns"), a.turns(), "the recorded turns themselves, not a copy");
        assertTrue(EventPayloads.conversationAppend(without("conversation_append", "/session_id"))
                .isEmpty());
        assertTrue(EventPayloads.conversationAppend(without("conversation_append", "/turns"))
                .isEmpty());
    }

    /** A whole {@code key_rotate} line as the writer recorded it. */
    private static final String KEY_ROTATE_LINE =
            "{\"actor\":\"maintainer\",\"after_hash\":null,\"before_hash\":null,\"branch\":\"main\",\"chain\":\"01M8B86KSVT91M1PB5PYECNABR\",\"entity_id\":null,\"entity_type\":null,\"event_id\":\"01M8B86M3GAFN7769WHMBDMMH3\",\"evidence_refs\":[],\"file_path\":null,\"idempotency_key\":null,\"integrity\":{\"algo\":\"HMAC-SHA256\",\"line_hash\":\"df75b07444a74a3d01be273a663cad0697e56b2acdedbd61e73c965fa0a1cc28\",\"prev\":\"507c8d7958fc6f9ae73dbd841278407f8cbf3651c1ab06e99b8b2601aa785049\",\"salt_version\":1},\"op\":\"key_rotate\",\"payload\":{\"current\":2,\"decl\":{\"count\":1,\"id\":\"01M8B86M3GAFN7769WHMBDMMH3\",\"index\":0},\"retired\":1},\"rationale\":\"rotate the ledger key\",\"section_anchor\":null,\"seq\":10,\"tool_call_id\":null,\"ts\":\"2026-11-26T06:20:34Z\",\"user_id\":null}";

    @Test
    void anEventsParser_readsOnlyItsOwnOp() throws Exception {
        Event rotation = Event.fromJson(M.readTree(KEY_ROTATE_LINE));
        assertEquals(
                new KeyRotatePayload(1, 2), EventPayloads.keyRotate(rotation).orElseThrow());
        assertEquals(
                new Decl("01M8B86M3GAFN7769WHMBDMMH3", 0, 1),
                EventPayloads.decl(rotation).orElseThrow());
        assertTrue(EventPayloads.sectionLock(rotation).isEmpty());
        assertTrue(EventPayloads.grammarOp(rotation).isEmpty());
        ObjectNode relabelled = (ObjectNode) M.readTree(KEY_ROTATE_LINE);
        relabelled.put("op", "section_lock");
        assertTrue(
                EventPayloads.keyRotate(Event.fromJson(relabelled)).isEmpty(), "a key_rotate shape under another op");
    }

    @Test
    void aDecl_isReadFromAnyRecordedPayload() throws Exception {
        assertEquals(new Decl("01M8B86M3GAFN7769WHMBDMMH3", 0, 1), Decl.of(recorded("key_rotate")));
        assertNull(Decl.of(without("key_rotate", "/decl/count")));
    }
}
