package dev.memoryd.daemon.rpc;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Accumulates one request line up to a limit, then only notes that it overflowed. */
final class LineBuffer {
    private final int max;
    private byte[] buf = new byte[256];
    private int len;
    private boolean overflow;

    LineBuffer(int max) {
        this.max = max;
    }

    void add(byte b) {
        if (overflow) {
            return;
        }
        if (len == max) {
            overflow = true;
            buf = new byte[256]; // drop what was buffered: the line is refused anyway
            len = 0;
            return;
        }
        if (len == buf.length) {
            buf = java.util.Arrays.copyOf(buf, Math.min(max, buf.length * 2));
        }
        buf[len++] = b;
    }

    boolean overflowed() {
        return overflow;
    }

    /** The line decoded strictly as UTF-8, or null if it is not valid UTF-8. */
    String text() {
        int end = len > 0 && buf[len - 1] == '\r' ? len - 1 : len;
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(buf, 0, end))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    void reset() {
        len = 0;
        overflow = false;
        if (buf.length > 64 * 1024) {
            buf = new byte[256]; // an idle connection keeps no large buffer
        }
    }
}
