package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.memoryd.daemon.client.DaemonReply;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps the server's resource list in step with the daemon's memory files and tells the client
 * what changed. Every period it asks the daemon for its head ({@code ping}); when the head moved
 * it asks which memory files changed since the last head it saw ({@code changes}), registers the
 * created files and drops the removed ones (each a {@code notifications/resources/list_changed})
 * and sends {@code notifications/resources/updated} for every changed file a client subscribed
 * to. Agents' writes and humans' captured edits are both commits, so both show. When the daemon
 * was unreachable or the old head is gone, the whole list is fetched again ({@code files}) and
 * every listed file counts as updated. A round's notifications reach the client together, after
 * all of its changes are registered. It reads nothing itself: everything comes over the socket.
 */
final class ResourceWatch implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ResourceWatch.class.getName());

    private final DaemonLink link;
    private final MemoryResources resources;
    private final McpSyncServer server;
    private final LineTransport transport;
    private final long periodMs;
    private final Set<String> listed;
    private String head;
    private volatile boolean closed;
    private Thread thread;

    /** {@code listing}: what the server was built with. */
    ResourceWatch(
            DaemonLink link,
            MemoryResources resources,
            McpSyncServer server,
            LineTransport transport,
            MemoryResources.Listing listing,
            long periodMs) {
        this.link = link;
        this.resources = resources;
        this.server = server;
        this.transport = transport;
        this.periodMs = periodMs;
        this.listed = new LinkedHashSet<>(listing.paths());
        this.head = listing.commit();
    }

    /** Starts polling on a daemon thread of its own; a second call does nothing. */
    synchronized void start() {
        if (thread != null || closed) {
            return;
        }
        thread = new Thread(this::run, "mcp-resource-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!closed) {
            try {
                transport.together(this::tick);
            } catch (RuntimeException e) { // a notification that could not be sent: the client is leaving
                if (!closed) {
                    LOG.log(Level.FINE, "resource watch: " + e, e);
                }
            }
            try {
                TimeUnit.MILLISECONDS.sleep(periodMs);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One round: the daemon's head, and if it moved, the list brought up to date and the client told. */
    synchronized void tick() {
        DaemonReply ping = link.call("ping", JsonNodeFactory.instance.objectNode());
        if (!(ping instanceof DaemonReply.Result p) || !p.value().path("head").isTextual()) {
            return; // no daemon, or no commit yet: nothing to compare with
        }
        String now = p.value().path("head").asText();
        if (now.equals(head)) {
            return;
        }
        if (head != null) {
            DaemonReply r =
                    link.call("changes", JsonNodeFactory.instance.objectNode().put("since", head));
            if (r instanceof DaemonReply.Result c) {
                for (JsonNode f : c.value().path("files")) {
                    String path = f.path("path").asText();
                    switch (f.path("change").asText()) {
                        case "added" -> add(path);
                        case "removed" -> remove(path);
                        default -> {}
                    }
                    updated(path);
                }
                head = c.value().path("head").asText(now);
                return;
            }
            if (!(r instanceof DaemonReply.Refused)) {
                return; // the daemon went away mid-round: try again next round
            }
        }
        resync(); // no head seen yet, or the daemon no longer has it
    }

    private void resync() {
        MemoryResources.Listing l = resources.list();
        if (l.commit() == null) {
            return;
        }
        Set<String> fresh = new LinkedHashSet<>(l.paths());
        for (String p : Set.copyOf(listed)) {
            if (!fresh.contains(p)) {
                remove(p);
                updated(p);
            }
        }
        for (String p : fresh) {
            add(p);
            updated(p);
        }
        head = l.commit();
    }

    private void add(String path) {
        if (listed.add(path)) {
            server.addResource(resources.spec(path));
        }
    }

    private void remove(String path) {
        if (listed.remove(path)) {
            server.removeResource(ResourceUris.of(path));
        }
    }

    private void updated(String path) {
        server.notifyResourcesUpdated(new McpSchema.ResourcesUpdatedNotification(ResourceUris.of(path)));
    }

    @Override
    public void close() {
        closed = true;
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            t.interrupt();
        }
    }
}
