package dev.memoryd.daemon.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.rpc.catalogue.MethodCatalogue;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code memoryd mcp}: a Model Context Protocol server on stdin/stdout (newline-delimited
 * JSON-RPC) in front of the daemon serving {@code --root}. A thin shim: every tool call is one
 * socket call to that daemon, so any number of MCP processes share its one writer; it never
 * starts a daemon and never writes on its own. With no daemon, {@code initialize} and
 * {@code tools/list} work and every tool call but {@code guide} answers a tool error saying how to
 * start one. Calls are served in the order they arrive, one at a time. Every memory file is a
 * resource ({@code memoryd://<path>}), read through the daemon and kept current by a
 * {@link ResourceWatch} while the client is connected. stdout carries protocol messages only
 * (whatever else prints goes to stderr, as logging does); the command returns when stdin closes.
 */
@Command(
        name = "mcp",
        description = "Serve MCP (Model Context Protocol) on stdin/stdout for agents,"
                + " forwarding each tool call to the daemon serving --root (start that with serve).")
public final class McpCommand implements Callable<Integer> {
    @Option(names = "--root", defaultValue = "./memory", description = "memory root whose daemon to forward to")
    Path root;

    @Option(
            names = "--actor",
            description = "actor of the events this server's calls record" + " (default: the MCP client's name)")
    String actor;

    @Override
    public Integer call() {
        PrintStream protocol = System.out;
        System.setOut(System.err); // nothing but protocol messages may reach the client's stdout
        Path abs = root.toAbsolutePath().normalize();
        DaemonLink link = new DaemonLink(abs, MemorydConfig.defaults(abs, null).socket());
        Shim shim = start(link, actor, System.in, protocol, WATCH_PERIOD_MS);
        shim.transport().serve(); // until stdin ends, with every request answered
        shim.watch().close();
        shim.server().closeGracefully();
        link.close();
        return 0;
    }

    /** How often the daemon's head is asked for while a client is connected. */
    static final long WATCH_PERIOD_MS = 500;

    /**
     * A server, the transport that serves it ({@link LineTransport#serve}) and the watch that keeps
     * its resources current (started once the client is initialized).
     */
    record Shim(McpSyncServer server, LineTransport transport, ResourceWatch watch) {}

    /** The server over {@code in}/{@code out}, its tools and resources forwarding through {@code link}. */
    static Shim start(DaemonLink link, String actor, InputStream in, OutputStream out, long watchPeriodMs) {
        MemoryResources resources = new MemoryResources(link);
        MemoryResources.Listing listing = resources.list();
        ObjectMapper mapper = new ObjectMapper();
        LineTransport transport = new LineTransport(new JacksonMcpJsonMapper(mapper), in, out);
        McpSyncServer server = server(link, actor, resources, listing, transport, mapper);
        ResourceWatch watch = new ResourceWatch(link, resources, server, transport, listing, watchPeriodMs);
        transport.onInitialized(watch::start);
        return new Shim(server, transport, watch);
    }

    /** The server over {@code in}/{@code out}, its tools forwarding through {@code link}. */
    private static McpSyncServer server(
            DaemonLink link,
            String actor,
            MemoryResources resources,
            MemoryResources.Listing listing,
            LineTransport transport,
            ObjectMapper mapper) {
        return McpServer.sync(transport)
                .serverInfo("memoryd", Memoryd.VERSION)
                .instructions("memoryd keeps an agent's long-term memory as markdown files under Git. Call guide first"
                        + " to learn how the files are organised; read a section (keep its hash) before you change it with"
                        + " write. Every memory file is also a resource (memoryd://<path>). Serving " + link.root()
                        + ".")
                .capabilities(McpSchema.ServerCapabilities.builder()
                        .tools(false)
                        .resources(true, true)
                        .build())
                .jsonMapper(new JacksonMcpJsonMapper(mapper))
                .jsonSchemaValidator(new ResultSchemas(mapper))
                // The daemon judges params and answers the precise reason; the schemas describe, it enforces.
                .validateToolInputs(false)
                // Tool calls run on the thread reading stdin, one at a time, and their replies are written
                // there too (LineTransport). Concurrency lives in the daemon, which serves many MCP processes.
                .immediateExecution(true)
                .tools(new McpTools(link, actor).all(MethodCatalogue.get()))
                .uriTemplateManagerFactory(ResourceUris.templates())
                .resources(listing.paths().stream().map(resources::spec).toList())
                .resourceTemplates(resources.template())
                .build();
    }
}
