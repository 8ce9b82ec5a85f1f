package dev.memoryd.daemon.arch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of the whole tree, checked on the compiled classes: modules point one way
 * (daemon → ledger → jcs, daemon → grammar → jcs; the ledger knows nothing of memory files), no package cycle anywhere (the daemon's root package counted as
 * one), the service facade is reached only from the edges that serve it, and the web console
 * reaches the daemon only over its socket.
 */
class ArchitectureTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.memoryd");
    }

    @Test
    void grammar_dependsOnNeitherLedgerNorDaemon() {
        noClasses()
                .that()
                .resideInAPackage("dev.memoryd.grammar..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.memoryd.ledger..", "dev.memoryd.daemon..")
                .check(classes);
    }

    @Test
    void ledger_dependsOnNeitherGrammarNorDaemon() {
        noClasses()
                .that()
                .resideInAPackage("dev.memoryd.ledger..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.memoryd.grammar..", "dev.memoryd.daemon..")
                .check(classes);
    }

    @Test
    void jcs_dependsOnNoOtherModule() {
        noClasses()
                .that()
                .resideInAPackage("dev.memoryd.jcs..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.memoryd.grammar..", "dev.memoryd.ledger..", "dev.memoryd.daemon..")
                .check(classes);
    }

    @Test
    void noPackageCycles() {
        slices().assignedFrom(new SliceAssignment() {
                    @Override
                    public SliceIdentifier getIdentifierOf(JavaClass c) {
                        return SliceIdentifier.of(c.getPackageName());
                    }

                    @Override
                    public String getDescription() {
                        return "each package of dev.memoryd";
                    }
                })
                .should()
                .beFreeOfCycles()
                .check(classes);
    }

    @Test
    void apiTypes_dependOnNoOtherDaemonPackage() {
        noClasses()
                .that()
                .resideInAPackage("dev.memoryd.daemon.api")
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.memoryd.daemon..")
                        .and(DescribedPredicate.not(JavaClass.Predicates.resideInAPackage("dev.memoryd.daemon.api"))))
                .because("the error and outcome types are the bottom every other package may use")
                .check(classes);
    }

    @Test
    void serviceFacade_isReachedOnlyFromTheEdgesThatServeIt() {
        noClasses()
                .that()
                .resideOutsideOfPackages(
                        "dev.memoryd.daemon",
                        "dev.memoryd.daemon.app",
                        "dev.memoryd.daemon.cli..",
                        "dev.memoryd.daemon.rpc..",
                        "dev.memoryd.daemon.mcp..",
                        "dev.memoryd.daemon.doctor..",
                        "dev.memoryd.daemon.console..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.memoryd.daemon")
                .because("the root package is the service facade over every room; rooms below it do not call up")
                .check(classes);
    }

    @Test
    void console_reachesTheDaemonOnlyOverItsSocket() {
        noClasses()
                .that()
                .resideInAPackage("dev.memoryd.daemon.console..")
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.memoryd.daemon..")
                        .and(DescribedPredicate.not(JavaClass.Predicates.resideInAnyPackage(
                                "dev.memoryd.daemon.console..", "dev.memoryd.daemon.client..")))
                        .and(DescribedPredicate.not(JavaClass.Predicates.belongToAnyOf(
                                dev.memoryd.daemon.MemorydConfig.class,
                                dev.memoryd.daemon.rpc.JsonRpc.class,
                                dev.memoryd.daemon.layout.PrivateDir.class))))
                .because("the console is a client of the one writer: its socket path comes from the configuration,"
                        + " everything else from the daemon's methods; the state directory it keeps its token in"
                        + " is made by the one rule for that directory's mode")
                .check(classes);
    }

    /**
     * Where JSON trees may cross a public signature of the daemon: the protocol edges, and the named
     * classes that are the edge of the ledger or of a document the spec defines as JSON. Everything
     * else takes and returns records. Each entry says why it holds JSON.
     */
    private static final Map<String, String> JSON_EDGES = Map.ofEntries(
            Map.entry(
                    "dev.memoryd.daemon.events.EventPayloads",
                    "the one parser of ledger payloads: takes a payload as the ledger line holds it"),
            Map.entry(
                    "dev.memoryd.daemon.events.EventPayload",
                    "a payload's one writer: toJson is what the line records"),
            Map.entry("dev.memoryd.daemon.events.ForkPayload", "branch_fork's payload and its one writer"),
            Map.entry(
                    "dev.memoryd.daemon.events.DeclarePayload",
                    "declare's payload and its one writer; its provenance is kept as recorded for replay"),
            Map.entry(
                    "dev.memoryd.daemon.events.ProposalCreatedPayload",
                    "a proposal's ops and base as recorded (OpCodec's JSON), replayed and shown as the ledger holds them"),
            Map.entry(
                    "dev.memoryd.daemon.events.GrammarOpPayload",
                    "an op as recorded (OpCodec's JSON), replayed from it"),
            Map.entry(
                    "dev.memoryd.daemon.events.SliceCreatePayload",
                    "a slice's frontmatter: a JSON document by Slices v1"),
            Map.entry("dev.memoryd.daemon.events.AppendRowPayload", "a JSONL row: a JSON document by Slices v1"),
            Map.entry(
                    "dev.memoryd.daemon.events.RefPayload",
                    "a pointer file's frontmatter: a JSON document by Slices v1"),
            Map.entry(
                    "dev.memoryd.daemon.events.ConversationAppendPayload",
                    "stored turns: each element is a conversation file's line, byte for byte"),
            Map.entry(
                    "dev.memoryd.daemon.events.DriftFlaggedPayload",
                    "lint problems and the human source as recorded, which differ by kind and are shown as recorded"),
            Map.entry(
                    "dev.memoryd.daemon.write.Mutation$EventSpec",
                    "a drafted ledger event: its payload is the JSON the line will record"),
            Map.entry(
                    "dev.memoryd.daemon.write.ProvenanceJson",
                    "the one writer of Slices v1's provenance object (payloads, rows' _meta, replies)"),
            Map.entry(
                    "dev.memoryd.daemon.drift.DriftQueue$Entry",
                    "an open item's problems and human source, shown to maintainers as the drift event records them"),
            Map.entry(
                    "dev.memoryd.daemon.proposals.ProposalBook$Proposal",
                    "a proposal's ops and base, shown as its proposal_created event records them"),
            Map.entry("dev.memoryd.daemon.slices.SliceStore", "a slice and its rows are JSON documents by Slices v1"),
            Map.entry("dev.memoryd.daemon.peers.PeerConfig", "reads the peers section of the root's settings file"));

    private static final List<String> JSON_EDGE_PACKAGES = List.of(
            "dev.memoryd.daemon.rpc..",
            "dev.memoryd.daemon.cli..",
            "dev.memoryd.daemon.mcp..",
            "dev.memoryd.daemon.client..",
            "dev.memoryd.daemon.console..");

    @Test
    void jsonTrees_crossPublicSignatures_onlyAtTheEdges() {
        jsonTreesStopAtTheEdges().check(classes);
    }

    @Test
    void theJsonRule_catchesATreeReturned_takenOrWrappedByAServiceOutsideTheEdges() {
        AssertionError e = assertThrows(
                AssertionError.class,
                () -> jsonTreesStopAtTheEdges().check(new ClassFileImporter().importClasses(JsonLeakFixture.class)));
        assertTrue(e.getMessage().contains("JsonLeakFixture.answer() takes or returns ObjectNode"), e.getMessage());
        assertTrue(e.getMessage().contains("JsonLeakFixture.maybe() takes or returns ObjectNode"), e.getMessage());
        assertTrue(
                e.getMessage()
                        .contains("JsonLeakFixture.take(com.fasterxml.jackson.databind.JsonNode) takes or returns"),
                e.getMessage());
        assertTrue(e.getMessage().contains("(3 times)"), e.getMessage());
    }

    private static ArchRule jsonTreesStopAtTheEdges() {
        return codeUnits()
                .that()
                .arePublic()
                .and()
                .areDeclaredInClassesThat(resideInAPackage("dev.memoryd.daemon..")
                        .and(not(resideInAnyPackage(JSON_EDGE_PACKAGES.toArray(String[]::new))))
                        .and(not(belongToAnyNamed(JSON_EDGES.keySet())))
                        .and(isVisibleOutsideItsPackage()))
                .should(neitherTakeNorReturnAJsonTree())
                .because("JsonNode stops at the protocol edge: services take and return records");
    }

    @Test
    void onlyTheCommandLineStartsTheApplication() {
        noClasses()
                .that()
                .resideOutsideOfPackages("dev.memoryd.daemon.app", "dev.memoryd.daemon.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.memoryd.daemon.app", "dev.memoryd.daemon.cli..")
                .check(classes);
    }

    private static final String JSON_NODE = "com.fasterxml.jackson.databind.JsonNode";

    /** A class, or a nested class, that is public all the way out: its public members are API. */
    private static DescribedPredicate<JavaClass> isVisibleOutsideItsPackage() {
        return DescribedPredicate.describe("are visible outside their package", c -> {
            for (Optional<JavaClass> k = Optional.of(c);
                    k.isPresent();
                    k = k.get().getEnclosingClass()) {
                if (!k.get().getModifiers().contains(JavaModifier.PUBLIC)) {
                    return false;
                }
            }
            return true;
        });
    }

    private static DescribedPredicate<JavaClass> belongToAnyNamed(java.util.Set<String> names) {
        return DescribedPredicate.describe("are allowed JSON edges", c -> {
            for (Optional<JavaClass> k = Optional.of(c);
                    k.isPresent();
                    k = k.get().getEnclosingClass()) {
                if (names.contains(k.get().getName())) {
                    return true;
                }
            }
            return false;
        });
    }

    /** Neither a parameter nor the result names a JsonNode (or a subclass), type arguments included. */
    private static ArchCondition<JavaCodeUnit> neitherTakeNorReturnAJsonTree() {
        return new ArchCondition<>("neither take nor return a JsonNode") {
            @Override
            public void check(JavaCodeUnit u, ConditionEvents events) {
                List<JavaType> types = new ArrayList<>(u.getParameterTypes());
                types.add(u.getReturnType());
                for (JavaType t : types) {
                    for (JavaClass raw : t.getAllInvolvedRawTypes()) {
                        if (raw.isAssignableTo(JSON_NODE)) {
                            events.add(SimpleConditionEvent.violated(
                                    u, u.getFullName() + " takes or returns " + raw.getSimpleName()));
                        }
                    }
                }
            }
        };
    }
}
