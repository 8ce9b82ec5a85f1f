package dev.memoryd.daemon.write;

import dev.memoryd.daemon.events.Decl;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.git.CommitBatch;
import dev.memoryd.daemon.git.CommitFormat;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.ledger.Chain;
import dev.memoryd.ledger.Event;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Crash recovery's roll-forward: the declarations whose ledger lines are durable but never
 * reached the branch (a kill between the ledger fsync and the ref move) are redone from their
 * events onto the branch head, one commit each as the writer would have made them, and their
 * files written where the working tree still holds the head's text or memoryd's half-done write
 * (anything else is a human's and stays); a redone capture of a human's edit writes their text
 * back only where the file holds the head's text (a reset to before the capture rolled it back).
 * A declaration cut off mid-write was never acknowledged: its lines are dropped, not half-applied.
 * Runs on the writer's thread, before the writer starts and when a git command moved the branch off
 * memoryd's commits ({@link TakenOff}); one use per instance.
 */
final class RollForward {
    private static final Logger LOG = Logger.getLogger(RollForward.class.getName());

    /**
     * The declarations redone (their events, in ledger order), the commit made for each, and the
     * blobs written to the tree by path.
     */
    record Result(List<List<Event>> groups, List<ObjectId> commits, Map<String, ObjectId> written) {}

    private final Chain chain;
    private final GitStore git;
    private final WritePipeline.FileStore files;
    private final Replayers replayers;
    private final String chainTrailer;

    RollForward(Chain chain, GitStore git, WritePipeline.FileStore files, Replayers replayers, String chainTrailer) {
        this.chain = chain;
        this.git = git;
        this.files = files;
        this.replayers = replayers;
        this.chainTrailer = chainTrailer;
    }

    /** Redoes the declarations after line {@code published}; empty groups when there were none. */
    Result run(long published) throws IOException {
        List<List<Event>> groups = new ArrayList<>();
        new DeclarationGroups(chain.read(published + 1)).forEachRemaining(groups::add);
        // A kill while a batch's lines were being written can leave the last declaration with only
        // some of its events (the torn line itself is dropped by Ledger.open). It was never
        // acknowledged; redoing part of it would half-apply it, so its lines are dropped too.
        if (!groups.isEmpty()) {
            List<Event> last = groups.get(groups.size() - 1);
            int count = EventPayloads.decl(last.get(0)).map(Decl::count).orElse(last.size());
            if (last.size() < count) {
                chain.truncateAfter(last.get(0).seq() - 1);
                groups.remove(groups.size() - 1);
                LOG.warning("recovery dropped ledger lines " + last.get(0).seq() + ".."
                        + last.get(last.size() - 1).seq() + ": an unacknowledged declaration of " + count
                        + " events was cut off after " + last.size());
            }
        }
        if (groups.isEmpty()) {
            return new Result(groups, List.of(), Map.of());
        }
        List<ObjectId> commits = new ArrayList<>();
        Map<String, ObjectId> written;
        ObjectId head = git.head();
        Map<RepoPath, String> overlay = new HashMap<>();
        Set<RepoPath> diskPaths = new HashSet<>();
        Set<RepoPath> capturedPaths = new HashSet<>();
        FileSource atHead = p -> {
            try {
                return git.read(head, p.value()).map(b -> new String(b, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        FileSource src = p -> overlay.containsKey(p) ? Optional.ofNullable(overlay.get(p)) : atHead.read(p);
        try (CommitBatch batch = git.batch()) {
            for (List<Event> g : groups) {
                Mutation m = replayers.mutationFor(g);
                Instant now = Instant.parse(g.get(0).ts());
                Mutation.Result r = m.apply(src, now);
                if (!(r instanceof Mutation.Done a)) {
                    throw new IllegalStateException("ledger lines " + g.get(0).seq() + ".."
                            + g.get(g.size() - 1).seq() + " cannot be replayed onto the branch head: " + r);
                }
                overlay.putAll(a.newContents());
                a.newContents().keySet().stream()
                        .filter(p -> !a.commitOnly().contains(p))
                        .forEach(diskPaths::add);
                capturedPaths.addAll(a.commitOnly());
                Map<String, byte[]> commitFiles = new LinkedHashMap<>();
                a.newContents()
                        .forEach((p, t) ->
                                commitFiles.put(p.value(), t == null ? null : t.getBytes(StandardCharsets.UTF_8)));
                if (m instanceof WritePipeline.MergeParent mp) {
                    commitFiles.putAll(otherChainsAsMerged(head, mp.mergeParent()));
                }
                commitFiles.putAll(segmentsThrough(g.get(g.size() - 1).seq(), published));
                Event last = g.get(g.size() - 1);
                commits.add(batch.commit(
                        commitFiles,
                        CommitFormat.author(g.get(0).actor(), now),
                        CommitFormat.committer(now),
                        CommitFormat.message(
                                Mutation.summaries(a.events()),
                                g.get(0).rationale(),
                                g.get(0).actor(),
                                g.stream().map(Event::eventId).toList(),
                                last.seq(),
                                last.integrity().lineHash(),
                                chainTrailer),
                        m instanceof WritePipeline.MergeParent mp ? mp.mergeParent() : null));
            }
            Map<String, byte[]> toWrite = new LinkedHashMap<>();
            for (Map.Entry<RepoPath, String> e : overlay.entrySet()) {
                if (!diskPaths.contains(e.getKey())) {
                    // A human's capture: their file stays as it is, unless it holds the branch head's text.
                    // Then a git command (a reset to before the capture) rolled back what they saved, and
                    // left as it is, it would be captured next as their edit taking their own words out.
                    if (capturedPaths.contains(e.getKey())
                            && e.getValue() != null
                            && files.read(e.getKey()).equals(atHead.read(e.getKey()))) {
                        toWrite.put(e.getKey().value(), e.getValue().getBytes(StandardCharsets.UTF_8));
                    }
                    continue;
                }
                if (e.getValue() == null) {
                    continue;
                }
                Optional<String> onDisk = files.read(e.getKey());
                // Only our own (possibly half-done) write may be replaced; anything else is a human's.
                // The head's text is read here, not remembered from the replay: a replayed merge carries
                // its texts and reads nothing.
                if (onDisk.isEmpty()
                        || onDisk.equals(atHead.read(e.getKey()))
                        || onDisk.get().equals(e.getValue())) {
                    toWrite.put(e.getKey().value(), e.getValue().getBytes(StandardCharsets.UTF_8));
                } else {
                    LOG.warning("recovery left " + e.getKey().value()
                            + " as found: it holds edits that are neither the branch head's nor memoryd's");
                }
            }
            files.writeAll(toWrite);
            batch.publish().orThrow();
            written = batch.written();
        }
        return new Result(groups, commits, written);
    }

    /**
     * Other chains' ledger files that differ between {@code head} and the merged commit, as the
     * merged commit holds them, where the working tree holds exactly that (a sync writes them before
     * its merge): a redone merge commits them as the original did, so tree and working tree agree.
     */
    private Map<String, byte[]> otherChainsAsMerged(ObjectId head, ObjectId merged) throws IOException {
        String own = "ledger/" + chain.branch().value() + "/";
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (String p : git.changedPaths(head, merged, x -> x.startsWith("ledger/") && !x.startsWith(own))) {
            Optional<byte[]> theirs = git.read(merged, p);
            Path f = files.root().resolve(p);
            if (theirs.isPresent()
                    && Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                    && Arrays.equals(Files.readAllBytes(f), theirs.get())) {
                out.put(p, theirs.get());
            }
        }
        return out;
    }

    /** Bytes of each ledger segment holding lines (published, seq], cut at line {@code seq}. */
    private Map<String, byte[]> segmentsThrough(long seq, long published) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (long s = published + 1; s <= seq; s++) {
            String path = chain.segmentPath(s);
            if (!out.containsKey(path)) {
                out.put(path, null);
            }
        }
        for (String path : new ArrayList<>(out.keySet())) {
            byte[] all = Files.readAllBytes(files.root().resolve(path));
            long firstSeq = chain.firstSeqOf(path);
            long keep = seq - firstSeq + 1;
            int end = 0;
            for (long n = 0; n < keep && end < all.length; end++) {
                if (all[end] == '\n') {
                    n++;
                }
            }
            out.put(path, Arrays.copyOf(all, end));
        }
        return out;
    }
}
