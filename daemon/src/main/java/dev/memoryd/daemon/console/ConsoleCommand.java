package dev.memoryd.daemon.console;

import dev.memoryd.daemon.MemorydConfig;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code memoryd console}: the web console for the root's human, on 127.0.0.1. It talks to the
 * daemon serving {@code --root} over its socket for everything it shows and every decision it
 * makes (it never writes on its own), and runs until SIGTERM or Ctrl-C.
 */
@Command(
        name = "console",
        description = "Serve the web console (drift, proposals, files, search, ledger) on"
                + " 127.0.0.1, talking to the daemon serving --root; prints a one-time login URL.")
public final class ConsoleCommand implements Callable<Integer> {
    @Option(names = "--root", defaultValue = "./memory", description = "memory root whose daemon to talk to")
    Path root;

    @Option(names = "--port", defaultValue = "7420", description = "port to listen on (0: any free port)")
    int port;

    @Option(
            names = "--actor",
            description = "who the console's decisions are recorded as"
                    + " (default: the root's git identity, human:Name <email>)")
    String actor;

    @Option(
            names = "--bind",
            description = "listen on this address instead of 127.0.0.1; anyone who can reach it"
                    + " and holds the login URL can decide for you")
    String bind;

    @Option(
            names = "--allow-remote",
            description = "with --bind naming an address other than loopback: yes, serve it"
                    + " there (plain HTTP; anyone who reaches it and holds the login URL can decide for you)")
    boolean allowRemote;

    @Override
    public Integer call() throws IOException, InterruptedException {
        Path abs = root.toAbsolutePath().normalize();
        if (!Files.isDirectory(abs.resolve(".git"))) {
            System.err.println("memoryd: " + abs + " is not a memory root; run 'bin/memoryd init --root " + abs + "'");
            return 1;
        }
        InetAddress address = InetAddress.getByName(bind == null ? "127.0.0.1" : bind);
        if (!address.isLoopbackAddress() && !allowRemote) {
            System.err.println(
                    "memoryd: refusing to serve the console on " + address.getHostAddress() + ": only this machine"
                            + " (127.0.0.1) unless you add --allow-remote; anyone who reaches it and holds the login URL can decide for you,"
                            + " over plain HTTP");
            return 1;
        }
        if (!address.isLoopbackAddress()) {
            System.err.println(
                    "memoryd: warning: the console listens on " + address.getHostAddress() + ", not only on this"
                            + " machine: anyone who can reach it and holds the login URL can decide for you; plain HTTP, no TLS");
        }
        String who = actor != null ? actor : ConsoleActor.of(abs);
        ConsoleServer.Options o = new ConsoleServer.Options(
                abs, MemorydConfig.defaults(abs, null).socket(), address, allowRemote, port, who);
        ConsoleServer server;
        try {
            server = ConsoleServer.start(o, url -> System.out.println("login (works once): " + url));
        } catch (ConsoleLock.Held e) {
            System.err.println("memoryd: " + e.getMessage());
            return 1;
        } catch (BindException e) {
            System.err.println("memoryd: cannot listen on " + address.getHostAddress() + ":" + port + ": "
                    + e.getMessage() + " (another console? try --port 0)");
            return 1;
        }
        System.out.println("memoryd console for " + abs + " at " + server.base() + ", deciding as " + who);
        if (!Files.exists(o.socket())) {
            System.out.println("no daemon serves " + abs + " yet; start one: bin/memoryd serve --root " + abs);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                server.close();
                            } catch (IOException e) {
                                System.err.println("memoryd: closing the console: " + e.getMessage());
                            }
                            stopped.countDown();
                        },
                        "memoryd-console-shutdown"));
        stopped.await();
        return 0;
    }
}
