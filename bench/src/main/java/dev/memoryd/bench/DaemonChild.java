package dev.memoryd.bench;

import dev.memoryd.daemon.MemorydConfig;
import dev.memoryd.daemon.cli.Main;
import dev.memoryd.daemon.client.SocketClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How a benchmark starts the daemon it measures: a child JVM running {@code memoryd serve} from
 * this JVM's class path, with {@link #jvm} options, its output in {@code <root>.daemon.log} beside
 * the root. {@link #start} returns once the daemon answers {@code ping}.
 *
 * @param jvm the daemon's JVM options
 * @param quietMs the daemon's quiet period before it captures a human's edit
 */
record DaemonChild(List<String> jvm, long quietMs) {
    DaemonChild {
        jvm = List.copyOf(jvm);
    }

    /**
     * The launcher's serve settings ({@link ServeJvmOptions#FILE}; none when {@code bareJvm}) and,
     * on JDK 25 and later, the daemon's AOT cache as serve has one ({@link DaemonCache}), then
     * {@code MEMORYD_DAEMON_JAVA_OPTS} (a JFR recording, another collector, a cache of its own...).
     */
    static DaemonChild of(boolean bareJvm, long quietMs) throws IOException {
        String env = System.getenv("MEMORYD_DAEMON_JAVA_OPTS");
        List<String> extra =
                env == null || env.isBlank() ? List.of() : List.of(env.trim().split("\\s+"));
        List<String> base = new ArrayList<>();
        if (!bareJvm) {
            base.addAll(ServeJvmOptions.read(ServeJvmOptions.locate()));
            if (extra.stream().noneMatch(o -> o.startsWith("-XX:AOTCache"))) {
                base.addAll(DaemonCache.options(List.copyOf(base)));
            }
        }
        return new DaemonChild(ServeJvmOptions.withExtra(base, extra), quietMs);
    }

    /** Starts a daemon on {@code cfg}'s root and waits up to 60 s for it to answer. */
    Process start(MemorydConfig cfg) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(jvm);
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "serve",
                "--root",
                cfg.root().toString(),
                "--key-file",
                cfg.keyFile().toString(),
                "--quiet-ms",
                String.valueOf(quietMs)));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(cfg.root()
                        .resolveSibling(cfg.root().getFileName() + ".daemon.log")
                        .toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(cfg.socket())) {
                try (SocketClient c = SocketClient.connect(cfg.socket())) {
                    if (c.call("ping", null).has("result")) {
                        return p;
                    }
                } catch (IOException e) {
                    // not up yet
                }
            }
            if (!p.isAlive()) {
                throw new IOException("the daemon exited with " + p.exitValue());
            }
            Thread.sleep(50);
        }
        p.destroyForcibly();
        throw new IOException("the daemon did not come up within 60 s");
    }

    /** Stops {@code daemon} with SIGTERM and waits up to 30 s for it to exit. */
    static void stop(Process daemon) throws InterruptedException {
        daemon.destroy();
        daemon.waitFor(30, TimeUnit.SECONDS);
    }

    /** CPU seconds (user + system) the process has used so far, from {@code /proc/<pid>/stat}. */
    static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // USER_HZ is 100 on Linux
    }

    /** A line of the daemon's /proc status ({@code VmRSS}, {@code VmHWM}, {@code RssAnon}) in MB. */
    static double rssMb(Process daemon, String field) throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc", String.valueOf(daemon.pid()), "status"))) {
            if (l.startsWith(field + ":")) {
                return Stats.round(Long.parseLong(l.replaceAll("\\D", "")) / 1024.0);
            }
        }
        throw new IOException("no " + field + " in /proc/" + daemon.pid() + "/status");
    }
}
