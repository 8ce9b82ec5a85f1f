package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A git command that holds the index lock moves the branch before it lets the lock go (a {@code
 * git commit -a} whose message is still being written in an editor), and git waits only 100 ms
 * for the branch's ref lock. So while git's {@code index.lock} exists the writer does not take
 * the ref lock at all: a write waits for git and is refused once the wait is over, having held
 * nothing git needs.
 */
class RefLockBesideGitTest {
    @TempDir
    Path tmp;

    private TestRoot root;

    @AfterEach
    void close() {
        if (root != null) {
            root.close();
        }
    }

    private JsonNode write(String item) throws Exception {
        return root.call(
                "write",
                "{\"rationale\":\"r\",\"ops\":[{\"op\":\"append_item\",\"path\":\"" + HumanEditTest.YOUNG
                        + "\",\"section\":\"Triggers\",\"item\":\"" + item + "\"}]}");
    }

    @Test
    void whileAGitCommandHoldsTheIndex_writesNeverTakeTheRefLock_andAreRefusedRecordingNothing() throws Exception {
        root = new TestRoot(tmp);
        root.serve();
        assertTrue(write("Warm-up").has("result"));
        String head = root.git("rev-parse", "HEAD").strip();
        Path indexLock = root.dir.resolve(".git/index.lock");
        Files.copy(root.dir.resolve(".git/index"), indexLock); // git at work: it holds the index
        Path refLock = root.dir.resolve(".git/refs/heads/main.lock");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean refLockSeen = new AtomicBoolean();
        Thread look = new Thread(() -> {
            while (!stop.get()) {
                if (Files.exists(refLock)) {
                    refLockSeen.set(true);
                }
            }
        });
        look.start();
        try {
            for (String item : new String[] {"Held out", "Held out again"}) {
                JsonNode refused = write(item);
                assertEquals("unavailable", refused.at("/error/data/reason").asText(), refused.toString());
                assertEquals(
                        indexLock.toString(), refused.at("/error/data/lock").asText(), refused.toString());
            }
        } finally {
            stop.set(true);
            look.join();
        }
        assertFalse(refLockSeen.get(), "the writer took the branch's ref lock while git held the index");
        assertEquals(head, root.git("rev-parse", "HEAD").strip(), "nothing was recorded");

        Files.delete(indexLock); // git is done
        assertTrue(write("After git").has("result"));
        assertFalse(Files.readString(root.dir.resolve(HumanEditTest.YOUNG)).contains("Held out"));
    }
}
