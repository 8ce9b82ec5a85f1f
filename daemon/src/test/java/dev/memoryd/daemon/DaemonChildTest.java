package dev.memoryd.daemon;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Base of test classes whose tests share one daemon child process serving a fresh example root. */
@Timeout(300)
abstract class DaemonChildTest {
    @TempDir
    static Path tmp;

    static TestRoot root;
    static DaemonProcess daemon;

    @BeforeAll
    static void startDaemon() throws Exception {
        root = new TestRoot(tmp);
        daemon = DaemonProcess.start(root.cfg, tmp.resolve("daemon.log"));
        daemon.awaitImported();
    }

    @AfterAll
    static void stopDaemon() throws Exception {
        if (daemon != null) {
            daemon.close();
            daemon = null;
        }
    }
}
