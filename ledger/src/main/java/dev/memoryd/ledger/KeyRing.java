package dev.memoryd.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.crypto.Mac;

/**
 * The ledger's key material: one 32-byte master secret per salt version, and the subkeys
 * derived from it with HKDF-SHA256 (RFC 5869; IKM = master, empty salt, L = 32,
 * info = {@code memoryd/ledger-line} or {@code memoryd/content-hash}).
 *
 * <p>Key file: {@code {"current": 1, "keys": {"1": "<64 hex>"}}}. {@link #loadOrCreate} (for
 * commands that create or serve a root) creates it with mode 0600 (missing parent directories
 * 0700); {@link #loadExisting} never creates it. Both refuse one that is
 * accessible by group or others, or malformed, with an {@link IllegalStateException} naming
 * the file and the problem.
 *
 * <p>Thread-safety: immutable; safe to share. Accessors return copies of key bytes.
 */
public final class KeyRing {
    static final String LINE_INFO = "memoryd/ledger-line";
    static final String CONTENT_INFO = "memoryd/content-hash";
    private static final int MASTER_LEN = 32;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final int current;
    private final Map<Integer, byte[]> lineKeys;
    private final Map<Integer, byte[]> contentKeys;
    private final ContentHasher contentHasher;

    private KeyRing(Map<Integer, byte[]> masters, int current) {
        if (masters.isEmpty()) {
            throw new IllegalArgumentException("a key ring needs at least one master key");
        }
        if (!masters.containsKey(current)) {
            throw new IllegalArgumentException("current key version " + current + " has no master key");
        }
        Map<Integer, byte[]> line = new TreeMap<>();
        Map<Integer, byte[]> content = new TreeMap<>();
        for (Map.Entry<Integer, byte[]> e : masters.entrySet()) {
            if (e.getKey() == null || e.getKey() < 1) {
                throw new IllegalArgumentException("key versions are positive integers, got " + e.getKey());
            }
            byte[] master = e.getValue();
            if (master == null || master.length != MASTER_LEN) {
                throw new IllegalArgumentException("master key " + e.getKey() + " must be 32 bytes");
            }
            line.put(e.getKey(), Hkdf.sha256(master, null, LINE_INFO.getBytes(StandardCharsets.UTF_8), 32));
            content.put(e.getKey(), Hkdf.sha256(master, null, CONTENT_INFO.getBytes(StandardCharsets.UTF_8), 32));
        }
        this.current = current;
        this.lineKeys = Collections.unmodifiableMap(line);
        this.contentKeys = Collections.unmodifiableMap(content);
        this.contentHasher = new ContentHasher(current, content.get(current));
    }

    /** A key ring over the given 32-byte master secrets (copied), with {@code current} used for new lines. */
    public static KeyRing of(Map<Integer, byte[]> masters, int current) {
        return new KeyRing(Map.copyOf(masters), current);
    }

    /**
     * Loads the key file, or creates it (one fresh 32-byte master from {@code random}, version 1)
     * when it does not exist.
     *
     * @throws IllegalStateException if the file is readable or writable by group/others, or malformed
     * @throws UncheckedIOException on I/O failure
     */
    public static KeyRing loadOrCreate(Path keyFile, SecureRandom random) {
        try {
            if (!Files.exists(keyFile, LinkOption.NOFOLLOW_LINKS)) {
                create(keyFile, random);
            }
            return load(keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create key file " + keyFile, e);
        }
    }

    /** Thrown when a key file that must already exist does not: only commands that create a root make one. */
    public static final class MissingKeyFile extends IllegalStateException {
        private final Path file;

        MissingKeyFile(Path file) {
            super("no ledger key file at " + file + ": point --key-file or MEMORYD_KEY_FILE at the key this root's"
                    + " ledger was written with ('memoryd init' and 'memoryd serve' make one only for a root whose"
                    + " ledger has no line yet)");
            this.file = file;
        }

        /** The key file that was looked for. */
        public Path file() {
            return file;
        }
    }

    /**
     * Loads the key file, which must exist; nothing is created.
     *
     * @throws MissingKeyFile if there is no file at {@code keyFile}
     * @throws IllegalStateException if the file is readable or writable by group/others, or malformed
     * @throws UncheckedIOException on I/O failure
     */
    public static KeyRing loadExisting(Path keyFile) {
        if (!Files.exists(keyFile, LinkOption.NOFOLLOW_LINKS)) {
            throw new MissingKeyFile(keyFile);
        }
        try {
            return load(keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read key file " + keyFile, e);
        }
    }

    private static KeyRing load(Path keyFile) throws IOException {
        PosixFileAttributeView posix = Files.getFileAttributeView(keyFile, PosixFileAttributeView.class);
        if (posix != null) {
            Set<PosixFilePermission> perms = posix.readAttributes().permissions();
            Set<PosixFilePermission> loose = EnumSet.of(
                    PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
                    PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);
            loose.retainAll(perms);
            if (!loose.isEmpty()) {
                throw new IllegalStateException(
                        "key file " + keyFile + " has mode " + PosixFilePermissions.toString(perms)
                                + "; it must not be accessible by group or others (chmod 600 it)");
            }
        }
        JsonNode root;
        try {
            root = JSON.readTree(Files.readAllBytes(keyFile));
        } catch (IOException e) {
            throw new IllegalStateException("key file " + keyFile + " is not valid JSON: " + e.getMessage(), e);
        }
        return parse(root, keyFile.toString());
    }

    private static KeyRing parse(JsonNode root, String where) {
        if (root == null || !root.isObject()) {
            throw malformed(where, "expected a JSON object");
        }
        JsonNode cur = root.get("current");
        if (cur == null || !cur.isIntegralNumber() || !cur.canConvertToInt()) {
            throw malformed(where, "\"current\" must be an integer");
        }
        JsonNode keys = root.get("keys");
        if (keys == null || !keys.isObject() || keys.isEmpty()) {
            throw malformed(where, "\"keys\" must be a non-empty object");
        }
        Map<Integer, byte[]> masters = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = keys.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            int version;
            try {
                version = Integer.parseInt(e.getKey());
            } catch (NumberFormatException ex) {
                throw malformed(where, "key version \"" + e.getKey() + "\" is not an integer");
            }
            if (version < 1) {
                throw malformed(where, "key version " + version + " must be positive");
            }
            JsonNode v = e.getValue();
            if (!v.isTextual() || v.textValue().length() != 64 || !v.textValue().matches("[0-9a-fA-F]{64}")) {
                throw malformed(where, "key " + version + " must be 64 hex characters");
            }
            masters.put(version, Hex.decode(v.textValue()));
        }
        if (!masters.containsKey(cur.intValue())) {
            throw malformed(where, "\"current\" is " + cur.intValue() + " but there is no such key");
        }
        return new KeyRing(masters, cur.intValue());
    }

    /**
     * Adds a new salt version (one more random master secret) to the key file and makes it
     * current. The file is replaced atomically (0600 temp file, fsync, rename, directory fsync),
     * so it is never seen half-written; earlier versions stay, so old lines keep verifying.
     *
     * @return the ring the file now holds
     */
    public static KeyRing rotate(Path keyFile, SecureRandom random) {
        try {
            KeyRing old = load(keyFile);
            JsonNode root = JSON.readTree(Files.readAllBytes(keyFile));
            int next = old.versions().stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
            byte[] master = new byte[MASTER_LEN];
            random.nextBytes(master);
            ObjectNode out = JSON.createObjectNode();
            out.put("current", next);
            ObjectNode ks = out.putObject("keys");
            root.get("keys").fields().forEachRemaining(e -> ks.set(e.getKey(), e.getValue()));
            ks.put(Integer.toString(next), Hex.encode(master));
            replace(keyFile, out, Long.toUnsignedString(random.nextLong(), 36));
            return load(keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rotate key file " + keyFile, e);
        }
    }

    /**
     * Makes {@code version}, which the key file holds, current again: what undoing a rotation
     * whose ledger line was never recorded needs, so later lines are signed as before it. The
     * newer versions stay in the file (nothing was signed with them that is kept), so a later
     * rotation takes a version after them. Replaced atomically as {@link #rotate} does.
     *
     * @return the ring the file now holds
     */
    public static KeyRing makeCurrent(Path keyFile, int version) {
        try {
            KeyRing ring = load(keyFile);
            if (!ring.hasVersion(version)) {
                throw new IllegalArgumentException("key file " + keyFile + " has no key version " + version);
            }
            if (ring.current() == version) {
                return ring;
            }
            ObjectNode out = (ObjectNode) JSON.readTree(Files.readAllBytes(keyFile));
            out.put("current", version);
            replace(keyFile, out, Long.toUnsignedString(System.nanoTime(), 36));
            return load(keyFile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restore key version " + version + " in " + keyFile, e);
        }
    }

    /** Replaces the key file with {@code content}: 0600 temp file, fsync, rename, directory fsync. */
    private static void replace(Path keyFile, JsonNode content, String tmpSuffix) throws IOException {
        byte[] bytes = (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(content) + "\n")
                .getBytes(StandardCharsets.UTF_8);
        Path abs = keyFile.toAbsolutePath();
        Path tmp = abs.resolveSibling(abs.getFileName() + ".tmp-" + tmpSuffix);
        try {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(bytes));
                ch.force(true);
            }
            Files.move(
                    tmp,
                    abs,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            fsyncDir(abs.getParent());
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static IllegalStateException malformed(String where, String why) {
        return new IllegalStateException("key file " + where + " is malformed: " + why);
    }

    private static void create(Path keyFile, SecureRandom random) throws IOException {
        Path abs = keyFile.toAbsolutePath();
        createPrivateDirs(abs.getParent());
        byte[] master = new byte[MASTER_LEN];
        random.nextBytes(master);
        ObjectNode root = JSON.createObjectNode();
        root.put("current", 1);
        root.putObject("keys").put("1", Hex.encode(master));
        byte[] bytes = (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n")
                .getBytes(StandardCharsets.UTF_8);
        // Write a private temp file, fsync it, then hard-link it into place: the key file appears
        // whole or not at all, and a concurrent creator's key is never silently replaced.
        Path tmp = abs.resolveSibling(abs.getFileName() + ".tmp-" + Long.toUnsignedString(random.nextLong(), 36));
        boolean posix = Files.getFileAttributeView(abs.getParent(), PosixFileAttributeView.class) != null;
        try {
            if (posix) {
                Files.createFile(
                        tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                // umask can only clear bits, but set the mode explicitly so it is exactly 0600.
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } else {
                Files.createFile(tmp);
            }
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(bytes));
                ch.force(true);
            }
            try {
                Files.createLink(abs, tmp);
            } catch (FileAlreadyExistsException raced) {
                return; // someone else created it first; load theirs
            } catch (UnsupportedOperationException noLinks) {
                Files.move(tmp, abs);
            }
            fsyncDir(abs.getParent());
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void createPrivateDirs(Path dir) throws IOException {
        if (dir == null || Files.isDirectory(dir)) {
            return;
        }
        List<Path> missing = new ArrayList<>();
        for (Path p = dir; p != null && !Files.exists(p); p = p.getParent()) {
            missing.add(p);
        }
        Collections.reverse(missing);
        for (Path p : missing) {
            try {
                Files.createDirectory(p);
            } catch (FileAlreadyExistsException e) {
                continue;
            }
            if (Files.getFileAttributeView(p, PosixFileAttributeView.class) != null) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
            }
        }
    }

    static void fsyncDir(Path dir) {
        // Linux allows fsync on a directory opened read-only; elsewhere this is best effort.
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Not supported on this platform/filesystem; durability of the entry is then the OS's.
        }
    }

    /** The salt version used for new lines and new content hashes. */
    public int current() {
        return current;
    }

    /** The salt versions this ring holds, ascending. */
    public Set<Integer> versions() {
        return lineKeys.keySet();
    }

    /** HKDF-SHA256(master, salt = empty, info = "memoryd/ledger-line", L = 32) of {@code version}. */
    public byte[] lineKey(int version) {
        return Arrays.copyOf(require(lineKeys, version), 32);
    }

    /** HKDF-SHA256(master, salt = empty, info = "memoryd/content-hash", L = 32) of {@code version}. */
    public byte[] contentKey(int version) {
        return Arrays.copyOf(require(contentKeys, version), 32);
    }

    /** The content hasher of the current version; thread-safe. */
    public ContentHasher contentHasher() {
        return contentHasher;
    }

    /** A content hasher for an older version (to recheck old before/after hashes). */
    public ContentHasher contentHasher(int version) {
        return version == current ? contentHasher : new ContentHasher(version, require(contentKeys, version));
    }

    /** True if this ring holds {@code version}. */
    public boolean hasVersion(int version) {
        return lineKeys.containsKey(version);
    }

    /** A fresh HMAC-SHA256 keyed with the line key of {@code version}; not thread-safe. */
    Mac lineMac(int version) {
        return ContentHasher.hmacSha256(require(lineKeys, version));
    }

    private static byte[] require(Map<Integer, byte[]> keys, int version) {
        byte[] k = keys.get(version);
        if (k == null) {
            throw new IllegalArgumentException(
                    "unknown key version " + version + "; this key ring holds " + keys.keySet());
        }
        return k;
    }

    @Override
    public String toString() {
        return "KeyRing[current=" + current + ", versions=" + lineKeys.keySet() + "]"; // never print key bytes
    }
}
