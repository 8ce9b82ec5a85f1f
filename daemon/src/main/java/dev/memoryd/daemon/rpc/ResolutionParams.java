package dev.memoryd.daemon.rpc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.branch.Resolution;
import dev.memoryd.daemon.branch.Resolutions;
import dev.memoryd.daemon.sync.SyncResolutions;
import dev.memoryd.grammar.RepoPath;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code resolutions} of {@code branch.merge} and {@code sync}, read from the request. What
 * cannot be read is kept as {@link Resolutions.Invalid}, not refused here: the merge refuses it
 * where it uses it, after the request's other checks, as the protocol has always ordered them.
 */
final class ResolutionParams {
    private ResolutionParams() {}

    /** {@code [{path, section, take: ours|theirs|content, content?}]}; absent or null: none. */
    static Resolutions merge(JsonNode n) {
        if (n == null || n.isNull()) {
            return Resolutions.NONE;
        }
        if (!n.isArray()) {
            return new Resolutions.Invalid("resolutions must be an array of {path, section, take, content?}");
        }
        List<Resolution> out = new ArrayList<>();
        for (int i = 0; i < n.size(); i++) {
            JsonNode r = n.get(i);
            String where = "resolutions[" + i + "]";
            if (!r.isObject()
                    || !r.path("path").isTextual()
                    || !r.path("section").isTextual()
                    || !r.path("take").isTextual()) {
                return new Resolutions.Invalid(where + " needs string fields path, section and take");
            }
            String take = r.get("take").asText();
            if (!Resolution.TAKES.contains(take)) {
                return new Resolutions.Invalid(where + ".take must be ours, theirs or content, not '" + take + "'");
            }
            JsonNode c = r.get("content");
            if (take.equals("content") && (c == null || !(c.isTextual() || c.isNull()))) {
                return new Resolutions.Invalid(
                        where + ".content (a string, or null to remove the section) is needed with take: content");
            }
            if (!take.equals("content") && c != null) {
                return new Resolutions.Invalid(where + ".content is only for take: content");
            }
            try {
                RepoPath.of(r.get("path").asText());
            } catch (IllegalArgumentException e) {
                return new Resolutions.Invalid(where + ".path: " + e.getMessage());
            }
            out.add(new Resolution(
                    r.get("path").asText(),
                    r.get("section").asText(),
                    take,
                    c == null || c.isNull() ? null : c.asText()));
        }
        return new Resolutions.Given(out);
    }

    /** An array (the checked-out branch's), or an object of branch name → array; absent, null or empty: none. */
    static SyncResolutions sync(JsonNode n) {
        if (n == null || n.isNull()) {
            return SyncResolutions.NONE;
        }
        if (!n.isArray() && !n.isObject()) {
            return new SyncResolutions.Malformed();
        }
        if (n.isEmpty()) {
            return SyncResolutions.NONE;
        }
        if (n.isArray()) {
            return new SyncResolutions.CheckedOut(merge(n));
        }
        Map<String, Resolutions> byBranch = new LinkedHashMap<>();
        n.fields().forEachRemaining(e -> byBranch.put(e.getKey(), merge(e.getValue())));
        return new SyncResolutions.ByBranch(byBranch);
    }
}
