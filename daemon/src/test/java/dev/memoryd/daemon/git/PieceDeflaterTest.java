package dev.memoryd.daemon.git;

import static dev.memoryd.daemon.git.GitCli.WHO;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.zip.Adler32;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Large blobs deflated in pieces: every stream inflates to its bytes, and a change deflates only what it touched. */
class PieceDeflaterTest {
    @TempDir
    Path root;

    @Test
    void everyVersion_inflatesToItsBytes_andChecksItsAdler_underRandomEdits() throws Exception {
        Random r = new Random(20261128);
        PieceDeflater d = new PieceDeflater(1);
        for (int path = 0; path < 4; path++) {
            byte[] data = text(r, r.nextInt(300_000));
            for (int edit = 0; edit < 60; edit++) {
                data = edit(r, data);
                if (r.nextInt(3) == 0) {
                    data = edit(r, data); // two changes in one version: the pieces between may have moved
                }
                PieceDeflater.Stream z = d.deflate("p" + path, data);
                assertArrayEquals(data, inflate(z), "path " + path + ", edit " + edit);
            }
        }
    }

    @Test
    void anAppend_reusesEveryPieceButTheLast_andCompressesAsWellAsAWholeDeflate() throws Exception {
        Random r = new Random(7);
        PieceDeflater d = new PieceDeflater(1);
        byte[] data = text(r, 1 << 20);
        PieceDeflater.Stream before = d.deflate("ledger/main/0000/00000000.ndjson", data);
        byte[] grown = concat(data, text(r, 5_000));
        PieceDeflater.Stream after = d.deflate("ledger/main/0000/00000000.ndjson", grown);
        assertArrayEquals(grown, inflate(after));
        int fresh = fresh(before, after);
        assertTrue(
                fresh <= 2, "deflated again: " + fresh + " of " + after.pieces().size() + " pieces");
        long whole = wholeDeflate(grown);
        assertTrue(after.length() < whole * 1.05, "pieces " + after.length() + " bytes, whole " + whole);
    }

    @Test
    void anEditInTheMiddle_reusesThePiecesBeforeAndAfterIt() throws Exception {
        Edited e = edited(9, data -> inserted(data, 100_000, "- a new item\n"));
        PieceDeflater.Stream before = e.before();
        PieceDeflater.Stream after = e.after();
        assertFewDeflatedAgain(before, after, 2);
        assertSame(before.pieces().get(0), after.pieces().get(0), "the first piece is the one kept");
        assertSame(
                before.pieces().get(before.pieces().size() - 1),
                after.pieces().get(after.pieces().size() - 1),
                "the last piece is the one kept");
    }

    @Test
    void twoEditsFarApart_reuseThePiecesBetweenThem_movedByTheFirst() throws Exception {
        // An item appended to an early section and a Change Log line near the end of a 200 KB file.
        Edited e = edited(
                11,
                data -> inserted(
                        inserted(data, 198_000, "- 2026-11-29: appended to Triggers (x2)\n"),
                        3_000,
                        "- a new trigger\n"));
        assertFewDeflatedAgain(e.before(), e.after(), 3);
        // and back: the pieces between move back by as much
        PieceDeflater.Stream again = e.deflater().deflate(e.path(), e.data());
        assertArrayEquals(e.data(), inflate(again));
        assertFewDeflatedAgain(e.after(), again, 3);
    }

    @Test
    void whatIsKept_staysBounded_andAPathDroppedIsDeflatedAfreshAndRight() throws Exception {
        Random r = new Random(5);
        PieceDeflater d = new PieceDeflater(1);
        byte[] first = text(r, 4 << 20);
        PieceDeflater.Stream a = d.deflate("first", first);
        for (int i = 0; i < 2; i++) { // 12 MB in all, within the bound of 16: "first" is kept
            d.deflate("other" + i, text(r, 4 << 20));
        }
        byte[] grown = concat(first, "x\n".getBytes(StandardCharsets.UTF_8));
        PieceDeflater.Stream b = d.deflate("first", grown);
        assertTrue(fresh(a, b) <= 2, "kept: " + fresh(a, b) + " pieces deflated again");
        for (int i = 2; i < 5; i++) { // 12 MB more, used after "first": it is dropped
            d.deflate("other" + i, text(r, 4 << 20));
        }
        byte[] again = concat(grown, "y\n".getBytes(StandardCharsets.UTF_8));
        PieceDeflater.Stream c = d.deflate("first", again);
        assertEquals(c.pieces().size(), fresh(b, c), "nothing of a dropped path is reused");
        assertArrayEquals(again, inflate(c));
    }

    @Test
    void adlerCombine_equalsTheAdlerOfTheJoinedBytes() {
        Random r = new Random(3);
        for (int i = 0; i < 2000; i++) {
            byte[] x = new byte[r.nextInt(i < 1000 ? 100 : 200_000)];
            byte[] y = new byte[r.nextInt(i < 1000 ? 100 : 200_000)];
            r.nextBytes(x);
            r.nextBytes(y);
            assertEquals(adler(concat(x, y)), PieceDeflater.adler32Combine(adler(x), adler(y), y.length), "case " + i);
        }
    }

    @Test
    void aGrowingFileAndAnEditedOne_committedBatchAfterBatch_readBackByGitAndJGit() throws Exception {
        GitStore.init(root, "main");
        Random r = new Random(11);
        byte[] seg = text(r, 100_000);
        byte[] doc = text(r, 200_000);
        try (GitStore g = GitStore.open(root, "main")) {
            for (int b = 0; b < 12; b++) {
                seg = concat(seg, text(r, 3_000 + r.nextInt(40_000)));
                doc = edit(r, doc);
                try (CommitBatch batch = g.batch()) {
                    batch.commit(Map.of("seg.ndjson", seg, "doc.md", doc), WHO, WHO, "batch " + b);
                    batch.publish();
                }
                assertArrayEquals(seg, g.read(g.head(), "seg.ndjson").orElseThrow(), "batch " + b);
                assertArrayEquals(doc, g.read(g.head(), "doc.md").orElseThrow(), "batch " + b);
            }
        }
        assertEquals("", git("fsck", "--full", "--strict", "--no-dangling"));
        Files.write(root.resolve("expect.md"), doc);
        assertEquals(git("hash-object", "expect.md"), git("rev-parse", "HEAD:doc.md"));
        Process show = new ProcessBuilder("git", "-C", root.toString(), "cat-file", "blob", "HEAD:seg.ndjson").start();
        assertArrayEquals(seg, show.getInputStream().readAllBytes());
        assertEquals(0, show.waitFor());
    }

    @Test
    void aBatchOfMoreVersionsThanADeltaChainHolds_firstInPiecesThenDeltasAndWholes_readByGitEveryOne()
            throws Exception {
        GitStore.init(root, "main");
        Random r = new Random(13);
        byte[] doc = text(r, 120_000);
        java.util.List<byte[]> versions = new java.util.ArrayList<>();
        java.util.List<String> commits = new java.util.ArrayList<>();
        try (GitStore g = GitStore.open(root, "main");
                CommitBatch batch = g.batch()) {
            for (int v = 0; v < 2 * BatchPackInserter.MAX_DEPTH + 5; v++) { // two whole versions past the first
                doc = edit(r, doc);
                versions.add(doc);
                commits.add(batch.commit(Map.of("doc.md", doc), WHO, WHO, "version " + v)
                        .name());
            }
            batch.publish();
        }
        assertEquals("", git("fsck", "--full", "--strict", "--no-dangling"));
        for (int v = 0; v < versions.size(); v++) {
            Process show = new ProcessBuilder(
                            "git", "-C", root.toString(), "cat-file", "blob", commits.get(v) + ":doc.md")
                    .start();
            assertArrayEquals(versions.get(v), show.getInputStream().readAllBytes(), "version " + v);
            assertEquals(0, show.waitFor());
        }
    }

    // ---------------------------------------------------------------- helpers

    /** A 200 KB text deflated, then edited and deflated again by one deflater. */
    private record Edited(
            PieceDeflater deflater,
            String path,
            byte[] data,
            PieceDeflater.Stream before,
            PieceDeflater.Stream after) {}

    /** Deflates a seeded 200 KB text and {@code edit} of it, checking the edited stream inflates to its bytes. */
    private static Edited edited(long seed, java.util.function.UnaryOperator<byte[]> edit) throws Exception {
        PieceDeflater d = new PieceDeflater(1);
        String path = "users/sam/parts/a.md";
        byte[] data = text(new Random(seed), 200_000);
        PieceDeflater.Stream before = d.deflate(path, data);
        byte[] changed = edit.apply(data);
        PieceDeflater.Stream after = d.deflate(path, changed);
        assertArrayEquals(changed, inflate(after));
        return new Edited(d, path, data, before, after);
    }

    /** {@code data} with {@code text} inserted at {@code at}. */
    private static byte[] inserted(byte[] data, int at, String text) {
        return concat(
                concat(java.util.Arrays.copyOf(data, at), text.getBytes(StandardCharsets.UTF_8)),
                java.util.Arrays.copyOfRange(data, at, data.length));
    }

    /** At most {@code max} of {@code after}'s pieces (of six or more) were deflated again. */
    private static void assertFewDeflatedAgain(PieceDeflater.Stream before, PieceDeflater.Stream after, int max) {
        int fresh = fresh(before, after);
        assertTrue(
                fresh <= max && after.pieces().size() >= 6,
                fresh + " of " + after.pieces().size() + " deflated again");
    }

    /** How many of {@code after}'s pieces are not pieces of {@code before} (deflated again). */
    private static int fresh(PieceDeflater.Stream before, PieceDeflater.Stream after) {
        Set<byte[]> old = Collections.newSetFromMap(new IdentityHashMap<>());
        old.addAll(before.pieces());
        return (int) after.pieces().stream().filter(p -> !old.contains(p)).count();
    }

    private static byte[] inflate(PieceDeflater.Stream z) throws Exception {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.write(z.header());
        for (byte[] p : z.pieces()) {
            all.write(p);
        }
        all.write(z.trailer());
        Inflater inf = new Inflater(); // zlib: checks the header and the Adler-32
        inf.setInput(all.toByteArray());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        while (!inf.finished()) {
            int n = inf.inflate(buf);
            if (n == 0 && (inf.needsInput() || inf.needsDictionary())) {
                throw new AssertionError("stream ended early");
            }
            out.write(buf, 0, n);
        }
        assertEquals(0, inf.getRemaining(), "nothing after the stream");
        inf.end();
        return out.toByteArray();
    }

    private static long wholeDeflate(byte[] data) {
        Deflater d = new Deflater(1);
        d.setInput(data);
        d.finish();
        byte[] buf = new byte[65536];
        long n = 0;
        while (!d.finished()) {
            n += d.deflate(buf);
        }
        d.end();
        return n;
    }

    private static long adler(byte[] b) {
        Adler32 a = new Adler32();
        a.update(b);
        return a.getValue();
    }

    private static final String[] WORDS = {
        "part", "needs", "trigger", "the", "protector", "- ", "\n", "## Role\n", "{\"turn\":", "}\n"
    };

    private static byte[] text(Random r, int n) {
        StringBuilder s = new StringBuilder(n + 16);
        while (s.length() < n) {
            s.append(r.nextInt(8) == 0 ? Integer.toString(r.nextInt(100_000)) : WORDS[r.nextInt(WORDS.length)]);
            s.append(' ');
        }
        s.setLength(n);
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /** An append, an insert, a removal, a replacement, or nothing, somewhere in {@code data}. */
    private static byte[] edit(Random r, byte[] data) {
        int at = data.length == 0 ? 0 : r.nextInt(data.length + 1);
        int cut = Math.min(data.length - at, r.nextInt(4) == 0 ? r.nextInt(70_000) : r.nextInt(200));
        byte[] mid = switch (r.nextInt(5)) {
            case 0 -> new byte[0];
            case 1 -> text(r, r.nextInt(80_000));
            default -> text(r, r.nextInt(300));
        };
        if (r.nextInt(6) == 0) {
            return concat(data, mid); // appended
        }
        if (r.nextInt(20) == 0) {
            return data.clone(); // the same bytes again
        }
        byte[] out = new byte[data.length - cut + mid.length];
        System.arraycopy(data, 0, out, 0, at);
        System.arraycopy(mid, 0, out, at, mid.length);
        System.arraycopy(data, at + cut, out, at + mid.length, data.length - at - cut);
        return out;
    }

    private String git(String... args) throws Exception {
        return GitCli.git(root, args);
    }
}
