package dev.memoryd.daemon.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
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
                                dev.memoryd.daemon.MemorydConfig.class, dev.memoryd.daemon.rpc.JsonRpc.class))))
                .because("the console is a client of the one writer: its socket path comes from the configuration,"
                        + " everything else from the daemon's methods")
                .check(classes);
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
}
