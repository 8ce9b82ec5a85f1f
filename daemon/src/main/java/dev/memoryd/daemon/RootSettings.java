package dev.memoryd.daemon;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.memoryd.daemon.peers.PeerConfig;
import dev.memoryd.daemon.peers.PeerMount;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A root's own settings, from {@value #FILE} at the root of the memory repository (committed with
 * it, so a clone behaves the same). A missing file means every default. Read once when the root is
 * opened: a change takes effect at the next start. An unknown key or a value of the wrong type is
 * an {@link IllegalArgumentException} naming the key, so a typo never silently leaves a setting
 * off.
 *
 * @param provenance Slices v1 provenance: every content write records who, in which session and
 *     how the knowledge was acquired (default off)
 * @param peers the roots mounted read-only beside this one ({@link PeerConfig})
 * @param promotionMinFiles in how many files of one type an Extensions heading must recur before
 *     {@code promotions.list} proposes it, unless a request says otherwise ({@code promotions:
 *     {min_files: N}}, default {@value dev.memoryd.daemon.promotions.Promotions#DEFAULT_MIN_FILES})
 * @param durability when a {@code write} that names none is answered ({@code durability: ledger}
 *     or {@code commit}, the default)
 */
public record RootSettings(
        boolean provenance,
        List<PeerMount> peers,
        int promotionMinFiles,
        dev.memoryd.daemon.write.Durability durability) {
    public static final String FILE = "memoryd.yaml";
    public static final RootSettings DEFAULTS = new RootSettings(
            false,
            List.of(),
            dev.memoryd.daemon.promotions.Promotions.DEFAULT_MIN_FILES,
            dev.memoryd.daemon.write.Durability.COMMIT);

    public RootSettings(boolean provenance, List<PeerMount> peers, int promotionMinFiles) {
        this(provenance, peers, promotionMinFiles, dev.memoryd.daemon.write.Durability.COMMIT);
    }

    public RootSettings {
        peers = List.copyOf(peers);
        durability = durability == null ? dev.memoryd.daemon.write.Durability.COMMIT : durability;
        if (promotionMinFiles < 1) {
            throw new IllegalArgumentException(
                    FILE + ": 'promotions.min_files' must be at least 1, not " + promotionMinFiles);
        }
    }

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Map<String, String> KEYS = Map.of(
            "provenance",
            "a boolean (true or false)",
            "peers",
            "a mapping of peer names to directories",
            "promotions",
            "a mapping with 'min_files: N' (N >= 1)",
            "durability",
            "commit or ledger");

    /** The settings of {@code root}: its {@value #FILE}, or the defaults when there is none. */
    public static RootSettings load(Path root) throws IOException {
        Path f = root.resolve(FILE);
        if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
            return DEFAULTS;
        }
        return parse(Files.readString(f, StandardCharsets.UTF_8), root);
    }

    /** Settings from the text of a {@value #FILE}, peers' directories relative to the working directory. */
    public static RootSettings parse(String text) {
        return parse(text, Path.of(""));
    }

    /** Settings from the text of a {@value #FILE} of the root at {@code root}. */
    public static RootSettings parse(String text, Path root) {
        JsonNode n;
        try {
            n = YAML.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(FILE + " is not valid YAML: " + e.getOriginalMessage());
        }
        if (n == null || n.isMissingNode() || n.isNull()) {
            return DEFAULTS;
        }
        if (!n.isObject()) {
            throw new IllegalArgumentException(FILE + " must be a mapping of settings (e.g. 'provenance: true')");
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!KEYS.containsKey(k)) {
                throw new IllegalArgumentException(
                        FILE + ": unknown setting '" + k + "'; known: " + String.join(", ", KEYS.keySet()));
            }
        }
        JsonNode p = n.get("provenance");
        if (p != null && !p.isBoolean()) {
            throw new IllegalArgumentException(FILE + ": 'provenance' must be " + KEYS.get("provenance"));
        }
        JsonNode d = n.get("durability");
        dev.memoryd.daemon.write.Durability durability = dev.memoryd.daemon.write.Durability.COMMIT;
        if (d != null) {
            durability = dev.memoryd.daemon.write.Durability.fromWire(d.isTextual() ? d.asText() : "")
                    .orElseThrow(() -> new IllegalArgumentException(
                            FILE + ": 'durability' must be " + KEYS.get("durability") + ", not " + d));
        }
        return new RootSettings(
                p != null && p.asBoolean(),
                PeerConfig.parse(n.get("peers"), root, FILE),
                promotionMinFiles(n.get("promotions")),
                durability);
    }

    private static int promotionMinFiles(JsonNode n) {
        if (n == null || n.isNull()) {
            return dev.memoryd.daemon.promotions.Promotions.DEFAULT_MIN_FILES;
        }
        if (!n.isObject()) {
            throw new IllegalArgumentException(FILE + ": 'promotions' must be " + KEYS.get("promotions"));
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals("min_files")) {
                throw new IllegalArgumentException(FILE + ": unknown setting 'promotions." + k + "'; known: min_files");
            }
        }
        JsonNode m = n.get("min_files");
        if (m == null) {
            return dev.memoryd.daemon.promotions.Promotions.DEFAULT_MIN_FILES;
        }
        if (!m.isInt() || m.asInt() < 1) {
            throw new IllegalArgumentException(
                    FILE + ": 'promotions.min_files' must be a whole number of at least 1, not " + m);
        }
        return m.asInt();
    }
}
