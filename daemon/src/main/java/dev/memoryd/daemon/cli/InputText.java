package dev.memoryd.daemon.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.client.JsonSyntaxError;
import dev.memoryd.daemon.client.TreeJson;
import dev.memoryd.daemon.layout.Utf8;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The JSON a command reads from a file or stdin ({@code write}, {@code declare}, {@code
 * conversation append}, the resolutions of {@code sync} and {@code branch merge}), decoded as
 * strict UTF-8 ({@link Utf8}): bytes that are not UTF-8 are refused naming where, never sent as
 * text with U+FFFD in their place, which the daemon would write and acknowledge. Stateless.
 */
final class InputText {
    private InputText() {}

    /** Input a command cannot send: the one-line reason, to print before exiting with {@link Main#USAGE}. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }

        /** Prints the reason to stderr; the usage exit code. */
        int print() {
            System.err.println("memoryd: " + getMessage());
            return Main.USAGE;
        }
    }

    /**
     * The resolutions of a merge given as {@code --resolutions}, a file or {@code -} for stdin: a
     * JSON array of resolutions, or with {@code perBranch} also an object of such arrays by branch.
     */
    static JsonNode resolutions(String option, boolean perBranch) throws IOException, Refused {
        JsonNode r = json(option.equals("-") ? null : Path.of(option), "the resolutions");
        if (!r.isArray() && !(perBranch && r.isObject())) {
            throw new Refused("the resolutions must be a JSON array [{\"path\": ..., \"section\": ..., \"take\": ...}]"
                    + (perBranch ? ", or an object of such arrays by branch {\"main\": [...]}" : ""));
        }
        return r;
    }

    /**
     * The JSON document in {@code file}, or on stdin when it is null; {@code what} names it in a
     * refusal ("the declaration"). Blank input is a missing node.
     */
    static JsonNode json(Path file, String what) throws IOException, Refused {
        String source = file == null ? "stdin" : file.toString();
        byte[] bytes;
        try {
            bytes = file == null ? System.in.readAllBytes() : Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new Refused(source + ": no such file");
        }
        String text;
        try {
            text = Utf8.decode(bytes, source);
        } catch (Utf8.NotUtf8 e) {
            throw new Refused(what + " (" + source + ") is not UTF-8 text: byte " + e.offset()
                    + " is the first that is not; nothing was sent");
        }
        try {
            return TreeJson.read(text);
        } catch (JsonProcessingException e) {
            throw new Refused(
                    what + " is not valid JSON" + JsonSyntaxError.of(e).atWhere());
        }
    }
}
