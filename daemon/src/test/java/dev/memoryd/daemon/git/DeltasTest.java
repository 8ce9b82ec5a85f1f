package dev.memoryd.daemon.git;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.eclipse.jgit.internal.storage.pack.BinaryDelta;
import org.junit.jupiter.api.Test;

/** memoryd's delta writer against JGit's delta reader. */
class DeltasTest {
    @Test
    void prefixSuffixDelta_appliedByJGit_givesTheTarget_forRandomEdits() {
        Random r = new Random(11);
        for (int i = 0; i < 2000; i++) {
            byte[] base = new byte[r.nextInt(3000)];
            r.nextBytes(base);
            int cut = base.length == 0 ? 0 : r.nextInt(base.length + 1);
            int keep = base.length - cut == 0 ? 0 : r.nextInt(base.length - cut + 1);
            byte[] mid = new byte[r.nextInt(400)];
            r.nextBytes(mid);
            // keep a prefix of `cut` bytes, drop `keep` bytes after it, insert `mid`, keep the rest
            byte[] target = new byte[cut + mid.length + (base.length - cut - keep)];
            System.arraycopy(base, 0, target, 0, cut);
            System.arraycopy(mid, 0, target, cut, mid.length);
            System.arraycopy(base, cut + keep, target, cut + mid.length, base.length - cut - keep);
            byte[] delta = Deltas.prefixSuffix(base, target);
            if (delta == null) {
                assertTrue(
                        base.length == 0
                                || target.length == 0
                                || base[0] != target[0] && base[base.length - 1] != target[target.length - 1],
                        "null only when nothing is shared");
                continue;
            }
            assertArrayEquals(target, BinaryDelta.apply(base, delta), "edit " + i);
            assertEquals(base.length, BinaryDelta.getBaseSize(delta));
            assertEquals(target.length, BinaryDelta.getResultSize(delta));
        }
    }

    @Test
    void appendedLines_costOnlyTheirBytes_andCopiesOfEveryLengthDecode() {
        for (int len : new int[] {1, 127, 128, 255, 256, 0xFFFF, 0x10000, 0x10001, 0x123456}) {
            byte[] base = new byte[len];
            Arrays.fill(base, (byte) 'a');
            byte[] target = Arrays.copyOf(base, len + 300);
            Arrays.fill(target, len, target.length, (byte) 'b');
            byte[] delta = Deltas.prefixSuffix(base, target);
            assertArrayEquals(target, BinaryDelta.apply(base, delta), "length " + len);
            assertTrue(delta.length < 300 + 20, "an append is stored as a copy and the new bytes: " + delta.length);
        }
    }

    @Test
    void nothingShared_isNoDelta() {
        assertNull(Deltas.prefixSuffix(new byte[] {1, 2, 3}, new byte[] {4, 5, 6}));
    }

    @Test
    void ofsDistance_roundTrips() {
        Random r = new Random(3);
        for (int i = 0; i < 10000; i++) {
            long d = i < 300 ? i + 1 : 1 + (r.nextLong() >>> (1 + r.nextInt(62)));
            byte[] b = new byte[16];
            int end = Deltas.encodeOfs(b, 3, d);
            long[] back = Deltas.decodeOfs(b, 3);
            assertEquals(d, back[0]);
            assertEquals(end - 3, back[1]);
        }
    }
}
