package dev.memoryd.daemon.branch;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.events.BranchMergePayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.substrate.MergeCheck;
import dev.memoryd.daemon.write.GrammarFiles;
import dev.memoryd.daemon.write.Mutation;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import dev.memoryd.grammar.human.HumanEdits;
import dev.memoryd.grammar.human.RegionNames;
import dev.memoryd.grammar.human.SectionMerge;
import dev.memoryd.grammar.substrate.Declare;
import dev.memoryd.ledger.Head;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.jgit.lib.ObjectId;

/**
 * {@code branch.merge}, applied on the writer of the branch merged into: a three-way merge of
 * every file the other branch changed since the merge base, per region ({@link SectionMerge}),
 * against the branch's files as the writer sees them now (so a human's uncaptured edit is
 * recorded first and merged like ours). All-or-nothing: any unresolved conflict refuses the whole
 * merge with {@code conflict} and {@code details.conflicts}, and merged chunk files that would
 * break a spec rule refuse it with {@code spec_violation} (checked as a {@code declare} is, on the
 * state the merge would leave); either way nothing is recorded.
 *
 * <p>The one {@code branch_merge} event carries the link to the merged chain's head and the whole
 * merged text of every file it changes, which is what replay and recovery redo, and for each
 * memory file the sections whose text it changed ({@code changed}), which is what history reads. The commit has two
 * parents (the branch, then the merged commit). Ledger files ({@code ledger/}) never merge: each
 * branch's tree carries its own chain.
 */
final class MergeMutation implements Mutation, WritePipeline.MergeParent {
    static final String OP = BranchMergePayload.OP;

    /** The spec rules over the chunk files a merge writes, judged on the writer thread of the branch merged into. */
    @FunctionalInterface
    interface ChunkCheck {
        /**
         * The first spec rule the branch would break once {@code chunkFiles} (path → merged text,
         * null: gone) are written over {@code ours} as {@code files} show it, or null. Records nothing.
         */
        Declare.Violation check(FileSource files, ObjectId ours, Map<String, String> chunkFiles) throws IOException;
    }

    private final GitStore into;
    private final GrammarFiles grammar;
    private final SectionHasher hasher;
    private final String fromName;
    private final ObjectId fromCommit;
    private final String linkBranch; // null when the merged commit carries no ledger head
    private final Head link;
    private final List<Resolution> resolutions;
    private final ChunkCheck chunks;
    private final Map<RepoPath, String> ledgerFiles;
    private final boolean quietWhenSame;

    MergeMutation(
            GitStore into,
            GrammarFiles grammar,
            SectionHasher hasher,
            String fromName,
            ObjectId fromCommit,
            String linkBranch,
            Head link,
            List<Resolution> resolutions,
            ChunkCheck chunks) {
        this(into, grammar, hasher, fromName, fromCommit, linkBranch, link, resolutions, chunks, Map.of(), false);
    }

    /**
     * A sync's merge: {@code ledgerFiles} (other replicas' chains, whole segment texts) are written
     * and committed with the merge but not carried in its event; when the merge changes no file of
     * the branch, {@code quietWhenSame} records nothing (the caller commits the chains alone).
     */
    MergeMutation(
            GitStore into,
            GrammarFiles grammar,
            SectionHasher hasher,
            String fromName,
            ObjectId fromCommit,
            String linkBranch,
            Head link,
            List<Resolution> resolutions,
            ChunkCheck chunks,
            Map<RepoPath, String> ledgerFiles,
            boolean quietWhenSame) {
        this.chunks = chunks;
        this.ledgerFiles = Map.copyOf(ledgerFiles);
        this.quietWhenSame = quietWhenSame;
        this.into = into;
        this.grammar = grammar;
        this.hasher = hasher;
        this.fromName = fromName;
        this.fromCommit = fromCommit;
        this.linkBranch = linkBranch;
        this.link = link;
        this.resolutions = List.copyOf(resolutions);
    }

    @Override
    public ObjectId mergeParent() {
        return fromCommit;
    }

    @Override
    public Result apply(FileSource files, Instant now) {
        try {
            return merge(files);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Result merge(FileSource files) throws IOException {
        ObjectId ours = into.head();
        Optional<ObjectId> baseId = into.mergeBase(ours, fromCommit);
        if (baseId.isEmpty()) {
            return refuse(
                    ErrorReason.INVALID_REQUEST, "branch " + fromName + " shares no history with " + into.branch());
        }
        ObjectId base = baseId.get();
        if (base.equals(fromCommit)) {
            if (!resolutions.isEmpty()) {
                Resolution r = resolutions.get(0);
                return refuse(
                        ErrorReason.INVALID_REQUEST,
                        "resolution " + r.path() + "#" + r.section() + "=" + r.take()
                                + " matches no conflicting section: " + fromName
                                + " is already merged; nothing was recorded");
            }
            return new Done(Map.of(), List.of(), false); // already merged: nothing to record
        }
        List<String> paths = into.changedPaths(base, fromCommit, p -> !p.startsWith("ledger/"));
        Map<String, List<Resolution>> byPath = new TreeMap<>();
        for (Resolution r : resolutions) {
            if (!paths.contains(r.path())) {
                return refuse(
                        ErrorReason.INVALID_REQUEST,
                        "resolution for " + r.path() + ": branch " + fromName
                                + " did not change that file since the merge base, so there is nothing to resolve");
            }
            byPath.computeIfAbsent(r.path(), k -> new ArrayList<>()).add(r);
        }
        Map<RepoPath, String> merged = new LinkedHashMap<>();
        Map<String, List<String>> changed = new LinkedHashMap<>(); // per memory file, the sections the merge changed
        List<Map<String, Object>> conflicts = new ArrayList<>();
        java.util.Set<Resolution> matched = new java.util.HashSet<>();
        Map<String, java.util.Set<String>> openByPath = new TreeMap<>();
        for (String path : paths) {
            RepoPath p = RepoPath.of(path);
            String b = text(base, path);
            String t = text(fromCommit, path);
            String o = files.read(p).orElse(null);
            if (Objects.equals(o, t)) {
                continue;
            }
            boolean memory = RootLayout.isMemoryFile(p);
            Map<String, String> resolved = new LinkedHashMap<>();
            java.util.Set<String> open = null; // the regions in conflict before any resolution
            Map<String, Resolution> byKey = new LinkedHashMap<>();
            for (Resolution r : byPath.getOrDefault(path, List.of())) {
                if (!memory && !r.section().equals(SectionMerge.WHOLE_FILE)) {
                    return refuse(
                            ErrorReason.INVALID_REQUEST,
                            "resolution for " + path + ": it is not a memory file, so" + " its only section is '"
                                    + SectionMerge.WHOLE_FILE + "'");
                }
                if (open == null) {
                    open = conflictKeys(memory ? SectionMerge.merge(b, o, t, Map.of()) : wholeFile(b, o, t, Map.of()));
                    openByPath.put(path, open);
                }
                // A heading names its section as in read and write; a resolution that matches no
                // conflicting section is refused below rather than ignored.
                String key = memory ? RegionNames.key(r.section(), o, t, b).orElse(r.section()) : r.section();
                if (!open.contains(key)) {
                    continue;
                }
                Resolution before = byKey.putIfAbsent(key, r);
                if (before != null
                        && !(before.take().equals(r.take()) && Objects.equals(before.content(), r.content()))) {
                    return refuse(
                            ErrorReason.INVALID_REQUEST,
                            "two resolutions for " + path + "#" + key + " (" + before.section() + "=" + before.take()
                                    + " and " + r.section() + "=" + r.take()
                                    + "); give one per conflicting section; nothing was merged");
                }
                matched.add(r);
                resolved.put(
                        key,
                        switch (r.take()) {
                            case "ours" -> pick(o, key);
                            case "theirs" -> pick(t, key);
                            default -> r.content();
                        });
            }
            SectionMerge.Result m = memory ? SectionMerge.merge(b, o, t, resolved) : wholeFile(b, o, t, resolved);
            if (m instanceof SectionMerge.Conflicts c) {
                for (SectionMerge.Conflict k : c.conflicts()) {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("path", path);
                    x.put("section", k.section());
                    x.put("base", k.base());
                    x.put("ours", k.ours());
                    x.put("theirs", k.theirs());
                    conflicts.add(x);
                }
                continue;
            }
            String text = ((SectionMerge.Merged) m).text();
            HumanEdits.Diff diff =
                    memory && text != null ? HumanEdits.diff(grammar.inForce(files), p, o, text, hasher) : null;
            if (diff instanceof HumanEdits.Breaks br) {
                return refuse(
                        ErrorReason.INVALID_REQUEST,
                        "the merged text of " + path + " would break the grammar (" + br.kind() + ": " + br.reason()
                                + "); resolve its sections with text that keeps headings and anchors");
            }
            if (!Objects.equals(text, o)) {
                merged.put(p, text);
                List<String> keys = changedKeys(diff, text);
                if (!keys.isEmpty()) {
                    changed.put(path, keys);
                }
            }
        }
        for (Resolution r : resolutions) {
            if (!matched.contains(r)) {
                return refuse(
                        ErrorReason.INVALID_REQUEST,
                        "resolution " + r.path() + "#" + r.section() + "=" + r.take()
                                + " matches no conflicting section" + openIn(r.path(), openByPath)
                                + "; name a section by its heading"
                                + " or anchor, as the conflicts list it; nothing was merged");
            }
        }
        if (!conflicts.isEmpty()) {
            return new Refused(
                    -1,
                    new Failure(
                            ErrorReason.CONFLICT,
                            conflicts.size() + " section(s) changed on both " + into.branch() + " and " + fromName
                                    + "; resolve each (ours, theirs or content) in the same call",
                            Map.of("conflicts", conflicts)));
        }
        Map<String, String> chunkFiles = MergeCheck.chunkFiles(merged);
        if (!chunkFiles.isEmpty()) {
            // A declaration is checked on its post-write state; so is the state this merge would leave.
            Declare.Violation v = chunks.check(files, ours, chunkFiles);
            if (v != null) {
                String whence = chunkFiles.containsKey(Declare.fileOf(v.chunk()))
                        ? " (chunk " + v.chunk() + " comes from " + fromName + ")"
                        : "";
                return new Refused(
                        -1,
                        MergeCheck.failure(
                                v,
                                "nothing was merged" + whence + ". To merge, first make the"
                                        + " rule hold on one side: declare on the branch (or replica) that holds one of the chunks, renaming it"
                                        + " (chunks: [{id, name}]), changing its body, or removing it (removals: [{chunk}]); then merge again"
                                        + " (for a sync: sync again)"));
            }
        }
        ObjectNode payload = JsonNodeFactory.instance.objectNode();
        if (linkBranch != null) {
            payload.putObject("link")
                    .put("branch", linkBranch)
                    .put("seq", link.seq())
                    .put("line_hash", link.lineHash());
        }
        ObjectNode mg = payload.putObject("merge");
        mg.put("from", fromName)
                .put("from_commit", fromCommit.name())
                .put("base", base.name())
                .put("into_commit", ours == null ? null : ours.name());
        ArrayNode rs = mg.putArray("resolutions");
        for (Resolution r : resolutions) {
            rs.addObject().put("path", r.path()).put("section", r.section()).put("take", r.take());
        }
        ObjectNode fs = payload.putObject("files");
        merged.forEach((p, t) -> fs.put(p.value(), t));
        ObjectNode cs = payload.putObject("changed");
        changed.forEach((p, keys) -> keys.forEach(cs.putArray(p)::add));
        if (merged.isEmpty() && quietWhenSame) {
            return new Done(Map.of(), List.of(), false);
        }
        String summary = "merged " + fromName + " into " + into.branch() + " (" + merged.size() + " file"
                + (merged.size() == 1 ? "" : "s") + ")";
        Map<RepoPath, String> contents = new LinkedHashMap<>(merged);
        contents.putAll(ledgerFiles);
        return new Done(
                contents, List.of(new EventSpec(OP, null, null, null, null, payload, List.of(), summary)), true);
    }

    /**
     * The sections (region keys: {@code _head} or an anchor) whose text a merge into a memory file
     * changed, in file order; empty for a file that is not one.
     */
    private static List<String> changedKeys(HumanEdits.Diff diff, String text) {
        if (diff instanceof HumanEdits.Regions r) {
            return r.changes().stream().map(HumanEdits.RegionChange::key).toList();
        }
        if (diff instanceof HumanEdits.WholeFile w) {
            return HumanEdits.regions(text).stream()
                    .map(HumanEdits.Region::key)
                    .filter(w.changedKeys()::contains)
                    .toList();
        }
        return List.of();
    }

    /**
     * Redoes a recorded merge from its event (recovery and replay): the merged texts it carries;
     * recovery commits it with the recorded merged commit as second parent, as the original was.
     */
    static Mutation replay(List<dev.memoryd.ledger.Event> events) {
        // The merge is recorded again as it was: its payload is copied, not rebuilt.
        ObjectNode payload = events.get(0).payload().deepCopy();
        Map<RepoPath, String> out = new LinkedHashMap<>();
        BranchMergePayload first = EventPayloads.branchMerge(events.get(0))
                .orElseThrow(() -> new IllegalStateException(
                        "ledger line " + events.get(0).seq() + " is a merge without what it merged or its texts"));
        for (dev.memoryd.ledger.Event e : events) {
            EventPayloads.branchMerge(e)
                    .ifPresent(m -> m.files().forEach((path, text) -> out.put(RepoPath.of(path), text)));
        }
        return new Replayed(out, payload, ObjectId.fromString(first.fromCommit()), first.from());
    }

    private record Replayed(Map<RepoPath, String> files, ObjectNode payload, ObjectId mergeParent, String from)
            implements Mutation, WritePipeline.MergeParent {
        @Override
        public Result apply(FileSource src, Instant now) {
            return new Done(
                    files,
                    List.of(new EventSpec(OP, null, null, null, null, payload, List.of(), "merged " + from)),
                    true);
        }
    }

    private static java.util.Set<String> conflictKeys(SectionMerge.Result m) {
        java.util.Set<String> keys = new java.util.HashSet<>();
        if (m instanceof SectionMerge.Conflicts c) {
            c.conflicts().forEach(k -> keys.add(k.section()));
        }
        return keys;
    }

    /** The sections of {@code path} in conflict, for a refusal's message. */
    private static String openIn(String path, Map<String, java.util.Set<String>> openByPath) {
        java.util.Set<String> open = new java.util.TreeSet<>(openByPath.getOrDefault(path, java.util.Set.of()));
        return " of " + path + (open.isEmpty() ? " (it has none)" : " (conflicting: " + String.join(", ", open) + ")");
    }

    private static SectionMerge.Result wholeFile(String b, String o, String t, Map<String, String> resolved) {
        if (Objects.equals(t, b) || Objects.equals(o, t)) {
            return new SectionMerge.Merged(o);
        }
        if (Objects.equals(o, b)) {
            return new SectionMerge.Merged(t);
        }
        if (resolved.containsKey(SectionMerge.WHOLE_FILE)) {
            return new SectionMerge.Merged(resolved.get(SectionMerge.WHOLE_FILE));
        }
        return new SectionMerge.Conflicts(List.of(new SectionMerge.Conflict(SectionMerge.WHOLE_FILE, b, o, t)));
    }

    /** One side's text of a region ({@link SectionMerge#WHOLE_FILE}: the whole file); null when absent. */
    private static String pick(String text, String section) {
        if (text == null || section.equals(SectionMerge.WHOLE_FILE)) {
            return text;
        }
        return HumanEdits.region(text, section).map(HumanEdits.Region::text).orElse(null);
    }

    private String text(ObjectId commit, String path) throws IOException {
        return into.read(commit, path)
                .map(x -> new String(x, StandardCharsets.UTF_8))
                .orElse(null);
    }

    private static Result refuse(ErrorReason reason, String message) {
        return new Refused(-1, Failure.of(reason, message));
    }
}
