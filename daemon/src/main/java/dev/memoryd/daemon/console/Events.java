package dev.memoryd.daemon.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.ledger.EventId;
import dev.memoryd.ledger.EvidenceToken;
import java.time.Instant;

/** How a ledger event (as {@code history} and {@code resolve} answer it) is named and linked. */
final class Events {
    private Events() {}

    /** The evidence token of {@code event}, built by the ledger's one rule. */
    static String token(JsonNode event) {
        return EvidenceToken.of(
                        Instant.parse(event.path("ts").asText()),
                        EventId.of(event.path("event_id").asText()))
                .value();
    }

    /** A link to the event's page. */
    static String link(JsonNode event) {
        String t = token(event);
        return Html.link("/event?token=" + Html.url(t), t);
    }

    /** One line about an event: its op, actor and time, with a link to it, then its rationale. */
    static String summary(JsonNode e) {
        return "<b>" + Html.text(e.path("op").asText()) + "</b> by "
                + Html.text(e.path("actor").asText()) + " at "
                + Html.text(e.path("ts").asText()) + " · " + link(e)
                + (e.path("rationale").isTextual()
                        ? "<br>" + Html.textWithTokens(e.path("rationale").asText())
                        : "");
    }

    /** A link to a memory file's page (to one section's place on it with {@code anchor}). */
    static String fileLink(String path, String anchor) {
        return Html.link(
                "/file?path=" + Html.url(path) + (anchor == null || anchor.isEmpty() ? "" : "#" + anchor),
                path + (anchor == null || anchor.isEmpty() ? "" : " § " + anchor));
    }
}
