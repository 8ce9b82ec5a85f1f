package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code memoryd serve --branch NAME} (a real daemon child): it serves the branch checked out in the working tree. */
class ServeBranchTest {
    private static final String WRITE = "{\"rationale\":\"on a branch\",\"ops\":[{\"op\":\"append_item\","
            + "\"path\":\"users/sam/overview.md\",\"section\":\"Active Themes\",\"item\":\"Rest on exp\"}]}";

    @TempDir
    Path tmp;

    TestRoot root;

    @BeforeEach
    void up() throws Exception {
        root = new TestRoot(tmp);
        root.git("checkout", "-q", "-b", "exp");
    }

    @AfterEach
    void down() {
        root.close();
    }

    @Test
    void serveBranch_servesTheCheckedOutBranch_andAWriteLandsOnIt() throws Exception {
        try (DaemonProcess d = DaemonProcess.start(root.cfg, tmp.resolve("daemon.log"), "--branch", "exp")) {
            d.result("write", WRITE);
            assertTrue(root.git("show", "exp:users/sam/overview.md").contains("- Rest on exp\n"), d.logTail(40));
            assertFalse(root.git("show", "main:users/sam/overview.md").contains("Rest on exp"));
            assertTrue(Files.isDirectory(root.dir.resolve("ledger/exp")), "no chain of its own for exp");
            assertTrue(d.result("ledger.verify", null).path("ok").asBoolean());
        }
    }

    @Test
    void serveBranch_thatDoesNotExist_exitsNamingIt() throws Exception {
        AssertionError e = org.junit.jupiter.api.Assertions.assertThrows(
                AssertionError.class,
                () -> DaemonProcess.start(root.cfg, tmp.resolve("daemon.log"), "--branch", "nope")
                        .close());
        assertTrue(e.getMessage().contains("nope"), e.getMessage());
    }

    @Test
    void aHumanWhoChecksOutAnotherBranchBetweenWrites_isNoticedAtTheNextWrite_andWritesResumeOnTheirReturn()
            throws Exception {
        try (DaemonProcess d = DaemonProcess.start(root.cfg, tmp.resolve("daemon.log"), "--branch", "exp")) {
            d.result("write", WRITE);
            root.git("checkout", "-q", "main");
            JsonNode r = d.call("write", WRITE.replace("Rest on exp", "while main is checked out"));
            assertTrue(r.has("error"), r.toString());
            assertEquals("refs/heads/main", r.at("/error/data/checked_out").asText(), r.toString());
            root.git("checkout", "-q", "exp");
            d.result("write", WRITE.replace("Rest on exp", "back on exp"));
            String exp = root.git("show", "exp:users/sam/overview.md");
            assertTrue(exp.contains("- back on exp\n"), exp);
            assertFalse(exp.contains("while main is checked out"), exp);
        }
    }

    @Test
    void serveWithoutBranch_whileAnotherIsCheckedOut_refusesWritesNamingTheBranchOption() throws Exception {
        try (DaemonProcess d = DaemonProcess.start(root.cfg, tmp.resolve("daemon.log"))) {
            JsonNode r = d.call("write", WRITE);
            assertTrue(r.has("error"), r.toString());
            assertTrue(r.get("error").get("message").asText().contains("--branch"), r.toString());
            assertFalse(root.git("show", "exp:users/sam/overview.md").contains("Rest on exp"));
        }
    }
}
