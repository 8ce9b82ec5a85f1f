package dev.memoryd.daemon.write;

import dev.memoryd.daemon.git.WorkTreeIndex;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which of a batch's committed files the working tree does not hold as committed: those memoryd
 * commits without writing them, such as the recorded text a capture keeps in the branch over a
 * human's deleted or drifted file, and the ledger segment before its append. The index must hold
 * the committed blob for each (it is what the branch holds), without a stat that would tell git
 * the file on disk is that blob: git then reads the file again and shows the human's version as a
 * change in the working tree, never as a change staged against the branch, which their next
 * {@code git commit} of anything would take into the branch. Reads files; changes nothing.
 */
final class UnplacedFiles {
    private UnplacedFiles() {}

    /**
     * Of {@code committed} (path to its committed bytes; null: removed), those not in {@code
     * placed} whose file under {@code root} is absent or holds other bytes, each mapped to {@link
     * WorkTreeIndex#NOT_THE_FILE}.
     */
    static Map<String, Long> unlikeDisk(Path root, Map<String, byte[]> committed, Set<String> placed)
            throws IOException {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> e : committed.entrySet()) {
            if (e.getValue() == null || placed.contains(e.getKey())) {
                continue;
            }
            Path f = root.resolve(e.getKey());
            long size;
            try {
                BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                size = a.isRegularFile() ? a.size() : -1;
            } catch (NoSuchFileException ex) {
                size = -1;
            }
            if (size != e.getValue().length || !Arrays.equals(Files.readAllBytes(f), e.getValue())) {
                out.put(e.getKey(), WorkTreeIndex.NOT_THE_FILE);
            }
        }
        return out;
    }
}
