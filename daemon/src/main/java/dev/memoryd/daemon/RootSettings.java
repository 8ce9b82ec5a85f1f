package dev.memoryd.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import dev.memoryd.daemon.peers.PeerConfig;
import dev.memoryd.daemon.peers.PeerMount;

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
 */
public record RootSettings(boolean provenance, List<PeerMount> peers) {
  public static final String FILE = "memoryd.yaml";
  public static final RootSettings DEFAULTS = new RootSettings(false, List.of());

  public RootSettings {
    peers = List.copyOf(peers);
  }

  private static final YAMLMapper YAML = new YAMLMapper();
  private static final Map<String, String> KEYS = Map.of("provenance", "a boolean (true or false)",
      "peers", "a mapping of peer names to directories");

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
        throw new IllegalArgumentException(FILE + ": unknown setting '" + k + "'; known: " + String.join(", ", KEYS.keySet()));
      }
    }
    JsonNode p = n.get("provenance");
    if (p != null && !p.isBoolean()) {
      throw new IllegalArgumentException(FILE + ": 'provenance' must be " + KEYS.get("provenance"));
    }
    return new RootSettings(p != null && p.asBoolean(), PeerConfig.parse(n.get("peers"), root, FILE));
  }
}
