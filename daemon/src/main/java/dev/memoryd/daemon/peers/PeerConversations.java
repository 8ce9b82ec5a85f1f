package dev.memoryd.daemon.peers;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.daemon.conversation.ContextSlice;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.grammar.policy.ContextSelector;
import dev.memoryd.grammar.policy.ConversationDag;
import dev.memoryd.grammar.policy.PolicyConfig;
import dev.memoryd.grammar.policy.Turn;
import dev.memoryd.grammar.slices.SliceFile;
import java.util.ArrayList;
import java.util.List;

/**
 * SlicePolicy v1 context over a peer's stored conversations: the turns of every conversation
 * slice ({@code body.type: conversation}, one turn a line) at the commit the peer is read at.
 * The export names its {@code peer}.
 */
public final class PeerConversations {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PeerConversations() {}

    /**
     * The SliceExport for {@code anchor} when it names a turn of a mounted peer ({@code NAME:turn});
     * empty when it names no peer, so the served root's own conversations answer.
     *
     * @throws dev.memoryd.grammar.policy.PolicyInputException when the anchor is not a turn of the peer
     */
    public static java.util.Optional<ContextSlice> context(Peers peers, String anchor, PolicyConfig config)
            throws java.io.IOException {
        java.util.Optional<Peers.PeerRef> ref = peers.resolve(anchor);
        if (ref.isEmpty()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(
                context(ref.get().peer().snapshot(), ref.get().rest(), config));
    }

    /**
     * The SliceExport for {@code anchor} among the peer's turns.
     *
     * @throws dev.memoryd.grammar.policy.PolicyInputException when the anchor is not a turn of the peer
     */
    public static ContextSlice context(PeerSnapshot peer, String anchor, PolicyConfig config) {
        List<Turn> turns = new ArrayList<>();
        peer.files().forEach((path, text) -> {
            if (!RootLayout.isChunkFile(path)) {
                return;
            }
            SliceFile f = SliceFile.parse(text);
            if (!f.slice()
                    .map(s -> "conversation".equals(s.path("body").path("type").asText()))
                    .orElse(false)) {
                return;
            }
            for (String line : f.body().split("\n")) {
                if (!line.isBlank()) {
                    turns.add(Turn.fromJson(parse(path, line), path));
                }
            }
        });
        return new ContextSlice(ContextSelector.export(ConversationDag.of(turns), anchor, config), peer.peer());
    }

    private static JsonNode parse(String path, String line) {
        try {
            return JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(path + ": a stored turn is not JSON: " + e.getOriginalMessage(), e);
        }
    }
}
