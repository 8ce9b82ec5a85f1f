package dev.memoryd.daemon.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * A transport provider whose session sends one message at a time. The SDK's stdio transport
 * (2.0.1) enqueues each outgoing message with a non-blocking emit that fails ("Failed to enqueue
 * message") when two threads send at once, dropping the message; replies come from the thread
 * reading stdin and resource notifications from {@link ResourceWatch}'s, so every send is made
 * under one lock here. A send completes once the message is queued for stdout, as before.
 */
final class SerialTransport implements McpServerTransportProvider {
    private final McpServerTransportProvider delegate;
    private final Object lock = new Object();

    SerialTransport(McpServerTransportProvider delegate) {
        this.delegate = delegate;
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory factory) {
        delegate.setSessionFactory(transport -> factory.create(new Serial(transport)));
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return delegate.notifyClients(method, params);
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return delegate.notifyClient(sessionId, method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }

    private final class Serial implements McpServerTransport {
        private final McpServerTransport transport;

        Serial(McpServerTransport transport) {
            this.transport = transport;
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            // The delegate's Mono does its emit when subscribed: subscribe (and wait) under the lock.
            return Mono.fromRunnable(() -> {
                synchronized (lock) {
                    transport.sendMessage(message).block();
                }
            });
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return transport.unmarshalFrom(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return transport.closeGracefully();
        }

        @Override
        public void close() {
            transport.close();
        }

        @Override
        public List<String> protocolVersions() {
            return transport.protocolVersions();
        }
    }
}
