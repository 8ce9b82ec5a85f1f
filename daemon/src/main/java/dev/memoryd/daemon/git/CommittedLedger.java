package dev.memoryd.daemon.git;

import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.CommittedChains;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Ledger chains as commits' trees hold them, for {@code ledger verify}: a link to a chain the
 * working tree's {@code ledger/} lacks (a merged branch's, in a clone where only the branch
 * merged into is checked out) is checked against the chain in the commit the linking line names,
 * which the merge or fork commit keeps reachable in every clone. Read-only; safe from any thread
 * that may read {@code git}.
 */
public final class CommittedLedger implements CommittedChains {
    private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}");
    private final GitStore git;

    public CommittedLedger(GitStore git) {
        this.git = git;
    }

    @Override
    public SortedMap<Long, byte[]> segments(String commit, BranchName chain) {
        SortedMap<Long, byte[]> out = new TreeMap<>();
        if (commit == null || !COMMIT.matcher(commit).matches()) {
            return out;
        }
        ObjectId id = ObjectId.fromString(commit);
        String dir = "ledger/" + chain.value();
        Pattern segment = Pattern.compile(Pattern.quote(dir) + "/\\d{4}/(\\d{8})\\.ndjson");
        try {
            for (String path : git.listFiles(id, dir)) {
                Matcher m = segment.matcher(path);
                if (m.matches()) {
                    byte[] b = git.read(id, path).orElseThrow(() -> new IOException(path + " vanished from " + commit));
                    out.put(Long.parseLong(m.group(1)), b);
                }
            }
        } catch (MissingObjectException e) {
            return new TreeMap<>(); // not in this repository (a shallow clone): the link is reported broken
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read ledger/" + chain.value() + " at commit " + commit, e);
        }
        return out;
    }
}
