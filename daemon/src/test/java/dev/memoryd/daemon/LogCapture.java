package dev.memoryd.daemon;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What anything in this JVM logs at {@code level} or above while it is open (the daemon under test
 * and its libraries: JGit logs through slf4j's java.util.logging binding), as "logger: message".
 */
final class LogCapture extends Handler implements AutoCloseable {
    private final List<String> seen = new ArrayList<>();
    private final Logger root = Logger.getLogger("");
    private final Level level;

    LogCapture(Level level) {
        this.level = level;
        root.addHandler(this);
    }

    @Override
    public synchronized void publish(LogRecord r) {
        if (r.getLevel().intValue() >= level.intValue()) {
            String m = r.getLoggerName() + ": " + r.getMessage();
            seen.add(m.length() > 300 ? m.substring(0, 300) + "..." : m);
        }
    }

    synchronized List<String> seen() {
        return List.copyOf(seen);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        root.removeHandler(this);
    }
}
