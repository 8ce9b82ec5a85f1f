package dev.memoryd.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Storage faults a root meets, for tests running as root (where {@code chmod} stops nothing): a
 * directory made immutable ({@code chattr +i}: nothing can be created, renamed or removed in it)
 * and the root's file system full (the root lives on a small tmpfs whose size is shrunk to what
 * it holds). Each kind is probed once and offered only when it works here; {@link #notes} says
 * why a kind is missing. {@link #close} undoes every fault and unmounts the tmpfs.
 */
final class FaultInjector implements AutoCloseable {
    /** The tmpfs size outside a fault: far more than a long soak writes. */
    private static final String ROOMY = "2g";

    private final Path base;
    private final Path mount;
    private final boolean chattr;
    private final List<String> notes;
    private final Set<Path> immutable = new LinkedHashSet<>();
    private boolean full;

    private FaultInjector(Path base, Path mount, boolean chattr, List<String> notes) {
        this.base = base;
        this.mount = mount;
        this.chattr = chattr;
        this.notes = notes;
    }

    /**
     * Mounts a tmpfs at {@code tmp/fs} for the root when mounting works, and checks that
     * {@code chattr +i} stops a file being created there; offers no fault unless {@code wanted}.
     */
    static FaultInjector probe(Path tmp, boolean wanted) throws IOException, InterruptedException {
        List<String> notes = new ArrayList<>();
        if (!wanted) {
            notes.add("no faults: turned off");
            return new FaultInjector(tmp, null, false, notes);
        }
        Path fs = tmp.resolve("fs");
        Files.createDirectories(fs);
        Path mount = null;
        Cmd m = Cmd.run("mount", "-t", "tmpfs", "-o", "size=" + ROOMY, "tmpfs", fs.toString());
        if (m.ok()) {
            mount = fs;
        } else {
            notes.add("no full-disk faults: cannot mount a tmpfs here (" + m.out.strip() + ")");
        }
        Path base = mount != null ? mount : tmp;
        Path probe = base.resolve("chattr-probe");
        Files.createDirectories(probe);
        boolean chattr = false;
        Cmd c = Cmd.run("chattr", "+i", probe.toString());
        if (c.ok()) {
            try {
                Files.createFile(probe.resolve("x"));
                notes.add("no immutable-directory faults: chattr +i did not stop a file being created");
            } catch (IOException expected) {
                chattr = true;
            }
            Cmd.run("chattr", "-i", probe.toString());
        } else {
            notes.add("no immutable-directory faults: chattr +i failed (" + c.out.strip() + ")");
        }
        RootInvariants.deleteTree(probe);
        return new FaultInjector(base, mount, chattr, notes);
    }

    /** Where the root goes: on the tmpfs when there is one. */
    Path base() {
        return base;
    }

    boolean canMakeImmutable() {
        return chattr;
    }

    boolean canFillDisk() {
        return mount != null;
    }

    List<String> notes() {
        return notes;
    }

    /** Makes {@code dir} immutable until {@link #makeMutable} or {@link #close}. */
    void makeImmutable(Path dir) throws IOException, InterruptedException {
        Cmd c = Cmd.run("chattr", "+i", dir.toString());
        if (!c.ok()) {
            throw new AssertionError("chattr +i " + dir + ": " + c.out);
        }
        immutable.add(dir);
    }

    void makeMutable(Path dir) throws IOException, InterruptedException {
        Cmd c = Cmd.run("chattr", "-i", dir.toString());
        if (!c.ok()) {
            throw new AssertionError("chattr -i " + dir + ": " + c.out);
        }
        immutable.remove(dir);
    }

    /**
     * Shrinks the tmpfs to what it holds (plus two pages), so the next write that needs space
     * fails with ENOSPC. False when it could not (it holds more by the time it is shrunk).
     */
    boolean fillDisk() throws IOException, InterruptedException {
        for (int i = 0; i < 5; i++) {
            var store = Files.getFileStore(mount);
            long used = store.getTotalSpace() - store.getUnallocatedSpace();
            if (Cmd.run("mount", "-o", "remount,size=" + (used + 8192), mount.toString())
                    .ok()) {
                full = true;
                return true;
            }
        }
        return false;
    }

    void freeDisk() throws IOException, InterruptedException {
        Cmd c = Cmd.run("mount", "-o", "remount,size=" + ROOMY, mount.toString());
        if (!c.ok()) {
            throw new AssertionError("remount " + mount + " size=" + ROOMY + ": " + c.out);
        }
        full = false;
    }

    /** Undoes every fault; unmounts the tmpfs (lazily when something still holds it). */
    @Override
    public void close() throws IOException, InterruptedException {
        for (Path d : List.copyOf(immutable)) {
            Cmd.run("chattr", "-i", d.toString());
            immutable.remove(d);
        }
        if (full) {
            freeDisk();
        }
        if (mount != null && !Cmd.run("umount", mount.toString()).ok()) {
            Cmd.run("umount", "-l", mount.toString());
        }
    }

    private record Cmd(int exit, String out) {
        boolean ok() {
            return exit == 0;
        }

        static Cmd run(String... cmd) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Cmd(p.waitFor(), out);
        }
    }
}
