package dev.memoryd.daemon;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.events.BranchMergePayload;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.GrammarOpPayload;
import dev.memoryd.daemon.git.CommittedLedger;
import dev.memoryd.daemon.git.EventCommits;
import dev.memoryd.daemon.git.GitStore;
import dev.memoryd.daemon.git.LedgerTrailers;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.read.FileReads;
import dev.memoryd.daemon.read.ReadResult;
import dev.memoryd.daemon.read.RootReads;
import dev.memoryd.daemon.read.SliceLinks;
import dev.memoryd.daemon.slices.Routines;
import dev.memoryd.daemon.slices.SliceFiles;
import dev.memoryd.daemon.write.GrammarFiles;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.LintProblem;
import dev.memoryd.grammar.Linter;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.slices.LinkGraph;
import dev.memoryd.ledger.BranchName;
import dev.memoryd.ledger.ContentHasher;
import dev.memoryd.ledger.Event;
import dev.memoryd.ledger.EvidenceToken;
import dev.memoryd.ledger.Head;
import dev.memoryd.ledger.KeyRing;
import dev.memoryd.ledger.Ledger;
import dev.memoryd.ledger.Verifier;
import dev.memoryd.ledger.VerifyResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.eclipse.jgit.lib.ObjectId;

/**
 * What every checking command needs of a root, and what a serving daemon reads through: files
 * (working tree or any commit), the grammar in force, lint, links, slices, history and evidence
 * from the ledger, and verification. It never writes, never takes the writer's lock, and never
 * creates key material: the key file is read the first time a hash is asked for. Its own files
 * only: a mounted peer's {@code NAME:} references are {@link ServingRoot}'s. Thread-safe: every
 * method reads.
 */
public final class ReadOnlyRoot implements RootReads, AutoCloseable {
    /** Reads a chain of the ledger, however the opener holds the ledger. */
    interface Chains {
        Iterator<Event> read(BranchName chain) throws IOException;
    }

    private final MemorydConfig cfg;
    private final GrammarFiles grammars;
    private final WorkTree tree;
    private final GitStore git;
    private final EventCommits eventCommits;
    private final SliceFiles slices;
    private final Supplier<ContentHasher> hasher;
    private final Chains chains;
    private final CommitReads commits;
    private final Linter linter = new Linter();

    ReadOnlyRoot(MemorydConfig cfg, GitStore git, Supplier<ContentHasher> hasher, Chains chains) throws IOException {
        this.cfg = cfg;
        this.grammars = new GrammarFiles(Templates.load(cfg.templatesDir()));
        this.tree = new WorkTree(cfg.root(), cfg.stateDir().resolve("spare"));
        this.git = git;
        this.eventCommits = new EventCommits(git.repository(), git::head);
        this.slices = new SliceFiles(cfg.root());
        this.hasher = hasher;
        this.chains = chains;
        this.commits = new CommitReads(cfg, git);
    }

    /**
     * Opens a root for reads, lint and {@link #verify} without a daemon; changes nothing on disk.
     * The key file is read only when something needs it (hashes, verify), and never created.
     */
    static ReadOnlyRoot open(MemorydConfig cfg) throws IOException {
        requireRepository(cfg);
        AtomicReference<ContentHasher> key = new AtomicReference<>();
        Supplier<ContentHasher> lazy = () -> key.updateAndGet(
                h -> h != null ? h : KeyRing.loadExisting(cfg.keyFile()).contentHasher());
        GitStore git = GitStore.open(cfg.root(), cfg.branch());
        try {
            return new ReadOnlyRoot(cfg, git, lazy, b -> Ledger.readOnly(cfg.ledgerDir(), b));
        } catch (IOException | RuntimeException e) {
            git.close();
            throw e;
        }
    }

    /**
     * Refuses a directory memoryd cannot open as a root, saying why: a linked git worktree (its
     * {@code .git} is a file; initialising it would be wrong advice) or no repository at all. The
     * one check every command that opens a root makes.
     */
    public static void requireRepository(MemorydConfig cfg) throws IOException {
        java.util.Optional<dev.memoryd.daemon.layout.LinkedWorktree> linked =
                dev.memoryd.daemon.layout.LinkedWorktree.of(cfg.root());
        if (linked.isPresent()) {
            throw new IllegalStateException(linked.get().refusal());
        }
        if (!Files.isDirectory(cfg.root().resolve(".git"))) {
            throw new IllegalStateException("no memory repository at " + cfg.root()
                    + "; create one with 'bin/memoryd init --root " + cfg.root() + "'");
        }
    }

    public MemorydConfig config() {
        return cfg;
    }

    GrammarFiles grammars() {
        return grammars;
    }

    WorkTree tree() {
        return tree;
    }

    GitStore git() {
        return git;
    }

    /** Listings, changes, diffs and searches at the repository's commits. */
    public CommitReads commits() {
        return commits;
    }

    /** The grammar in force on the checked-out branch: its head's {@code templates/}, else the base. */
    public Grammar grammar() {
        ObjectId head = git.head();
        return grammars.inForce(p -> {
            try {
                return head == null
                        ? Optional.empty()
                        : git.read(head, p.value()).map(b -> new String(b, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Reads a memory file (or one section) from the working tree, or from a commit with {@code at}. */
    public Outcome<ReadResult> read(String path, String section, String at) throws IOException {
        return read(path, section, at, true);
    }

    /**
     * As {@link #read(String, String, String)}; without {@code hashes} the result has no section
     * or content hashes, and the key file is not read (printing a file needs no key).
     */
    @Override
    public Outcome<ReadResult> read(String path, String section, String at, boolean hashes) throws IOException {
        RepoPath p;
        try {
            p = RepoPath.of(path);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "bad path: " + e.getMessage());
        }
        Optional<String> text;
        ObjectId commit = git.head();
        if (at != null) {
            Optional<ObjectId> c = git.resolve(at);
            if (c.isEmpty()) {
                return Outcome.fail(ErrorReason.NOT_FOUND, "no commit '" + at + "'");
            }
            commit = c.get();
            text = git.read(commit, p.value()).map(b -> new String(b, StandardCharsets.UTF_8));
        } else {
            try {
                text = tree.read(p);
            } catch (SecurityException e) {
                return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
            } catch (dev.memoryd.daemon.layout.NotMemoryText e) {
                // The file is there but is no memory file's text: drift, as for a write to it.
                return Outcome.fail(ErrorReason.DRIFT, e.getMessage());
            }
        }
        return FileReads.of(
                p.value(),
                Optional.empty(),
                commit == null ? null : commit.name(),
                text,
                section,
                at,
                hashes ? Optional.of(t -> hasher.get().hash(t)) : Optional.empty());
    }

    /**
     * Typed links from a slice id, over every memory file and {@code .slices/*.slice} in the working
     * tree (frontmatter only: a pointer's payload is never opened), with inverse, transitive and
     * symmetric inference when asked.
     */
    @Override
    public Outcome<List<LinkGraph.ExploredLink>> explore(String id, String rel, boolean infer) throws IOException {
        var bad = SliceLinks.checkRelation(rel);
        if (bad.isPresent()) {
            return bad.get();
        }
        List<String> texts = new ArrayList<>();
        for (String p : RootLayout.contentFilesOnDisk(cfg.root())) {
            texts.add(Files.readString(cfg.root().resolve(p), StandardCharsets.UTF_8));
        }
        return SliceLinks.explore(texts, id, rel, infer, Optional.empty());
    }

    /** The text of slice {@code id} in the working tree. */
    @Override
    public Optional<String> sliceText(String id) throws IOException {
        return slices.read(id);
    }

    /** Slices as the working tree holds them: read and list with staleness. */
    public SliceFiles slices() {
        return slices;
    }

    /** Routine slices compiled to markdown. */
    public Routines routines() {
        return new Routines(slices, cfg.root());
    }

    /** Lints one file, or every memory file under {@code users/}. */
    public Outcome<List<LintProblem>> lint(String path) throws IOException {
        List<LintProblem> out = new ArrayList<>();
        List<RepoPath> paths = new ArrayList<>();
        if (path != null) {
            try {
                paths.add(RepoPath.of(path));
            } catch (IllegalArgumentException e) {
                return Outcome.fail(ErrorReason.INVALID_REQUEST, "bad path: " + e.getMessage());
            }
        } else {
            java.util.SortedSet<String> all = new java.util.TreeSet<>(RootLayout.memoryFilesOnDisk(cfg.root()));
            all.addAll(RootLayout.memoryLinksOnDisk(cfg.root()));
            for (String p : all) {
                paths.add(RepoPath.of(p));
            }
        }
        Grammar g = grammar();
        for (RepoPath p : paths) {
            Optional<String> text;
            try {
                text = tree.read(p);
            } catch (SecurityException e) {
                return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
            } catch (dev.memoryd.daemon.layout.NotMemoryText e) {
                String rule = e instanceof dev.memoryd.daemon.layout.Utf8.NotUtf8 ? "not-utf8" : "symlink";
                out.add(new LintProblem(p.value(), 1, rule, e.getMessage()));
                continue; // a finding of this file's, as any other; the others are linted too
            }
            if (text.isEmpty()) {
                return Outcome.fail(ErrorReason.NOT_FOUND, "no file " + p.value());
            }
            out.addAll(linter.lint(g, p, text.get()));
        }
        return Outcome.ok(out);
    }

    /** Events that touched a file (and section), newest first. Scans the chain. */
    public Outcome<List<Event>> history(String path, String section, int limit) throws IOException {
        return history(path, section, limit, null);
    }

    /** As {@link #history(String, String, int)}, on {@code branch}'s chain (null: the checked-out branch). */
    public Outcome<List<Event>> history(String path, String section, int limit, String branch) throws IOException {
        try {
            RepoPath.of(path); // a path no event can name is a mistake to say, not an empty history
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "bad path: " + e.getMessage());
        }
        Iterator<Event> it;
        if (branch == null || branch.equals(cfg.branch())) {
            it = readChain();
        } else {
            Outcome<String> at = readPoint(branch, null);
            if (at instanceof Outcome.Failed<String> f) {
                return Outcome.fail(f.failure());
            }
            it = chains.read(new BranchName(branch).onReplica(git.replica()));
            if (!it.hasNext()) {
                return Outcome.fail(
                        ErrorReason.INVALID_REQUEST,
                        "branch '" + branch + "' has no ledger chain here, so no history (it was not made with"
                                + " branch.create or brought by sync; a proposal branch's changes are recorded on its"
                                + " base branch when accepted)");
            }
        }
        List<Event> all = new ArrayList<>();
        while (it.hasNext()) {
            Event e = it.next();
            if (path.equals(e.filePath())
                    && (section == null || section.equals(e.sectionAnchor()) || section.equals(sectionName(e)))) {
                all.add(e);
            } else if (e.filePath() == null && mergedInto(e, path, section)) {
                all.add(e);
            }
        }
        List<Event> out = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0 && out.size() < limit; i--) {
            out.add(all.get(i));
        }
        return Outcome.ok(out);
    }

    /**
     * Whether {@code e} is a merge that changed {@code path} (and its section {@code section}, an
     * anchor or a heading of the merged text; any section when null).
     */
    private static boolean mergedInto(Event e, String path, String section) {
        BranchMergePayload m = EventPayloads.branchMerge(e).orElse(null);
        if (m == null || !m.files().containsKey(path)) {
            return false;
        }
        if (section == null || m.changed(path, section)) {
            return true;
        }
        String text = m.files().get(path);
        if (text == null) {
            return false;
        }
        for (dev.memoryd.grammar.MemoryDocument.Section s :
                dev.memoryd.grammar.MemoryDocument.parse(text).h2Sections()) {
            if (section.equals(s.heading()) && s.anchor() != null) {
                return m.changed(path, s.anchor());
            }
        }
        return false;
    }

    private static String sectionName(Event e) {
        return EventPayloads.grammarOp(e).map(GrammarOpPayload::section).orElse(null);
    }

    /** The commit of the checked-out branch that carries event {@code eventId} (its {@code Memoryd-Event} trailer). */
    public Optional<String> commitOf(String eventId) throws IOException {
        return eventCommits.commitOf(eventId);
    }

    /** The event an {@code ev:} token names. */
    public Outcome<Event> resolve(String token) throws IOException {
        EvidenceToken t;
        try {
            t = new EvidenceToken(token);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "not an evidence token: " + e.getMessage());
        }
        Iterator<Event> it = readChain();
        String want = t.eventId().value();
        Optional<Event> found = Optional.empty();
        while (it.hasNext() && found.isEmpty()) {
            Event e = it.next();
            if (e.eventId().equals(want)) {
                found = Optional.of(e);
            }
        }
        if (found.isEmpty()) {
            // Not this root's chain: another branch's or another replica's (brought by sync).
            found = Verifier.find(cfg.ledgerDir(), t.eventId());
        }
        if (found.isEmpty()) {
            return Outcome.fail(ErrorReason.NOT_FOUND, "no event " + want + " in the ledger");
        }
        Event e = found.get();
        if (!EvidenceToken.of(Instant.parse(e.ts()), t.eventId()).equals(t)) {
            return Outcome.fail(
                    ErrorReason.NOT_FOUND, "event " + want + " exists but its time is " + e.ts() + ", not the token's");
        }
        return Outcome.ok(e);
    }

    private Iterator<Event> readChain() throws IOException {
        return chains.read(new BranchName(cfg.branch()).onReplica(git.replica()));
    }

    /**
     * The commit to read for {@code branch} and {@code at}: {@code at} when given, else the head of
     * a branch that is not checked out, else null (the working tree). Unknown branch: not_found.
     */
    public Outcome<String> readPoint(String branch, String at) throws IOException {
        if (at != null || branch == null || branch.equals(cfg.branch())) {
            return Outcome.ok(at);
        }
        Optional<ObjectId> h;
        try {
            new BranchName(branch);
            h = git.branchHead(branch);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
        }
        if (h.isEmpty()) {
            return Outcome.fail(ErrorReason.NOT_FOUND, git.noBranch(branch, " (see branch.list)"));
        }
        return Outcome.ok(h.get().name());
    }

    /**
     * Verifies every chain, checking the branch head's recorded ledger head for truncation, and
     * every link between chains (a chain the ledger directory lacks is read from Git history).
     */
    public VerifyResult verify() throws IOException {
        return verify(n -> {});
    }

    /** As {@link #verify()}, reporting lines verified so far to {@code progress} (for a terminal). */
    public VerifyResult verify(LongConsumer progress) throws IOException {
        Map<BranchName, Head> expected = new HashMap<>();
        // Every other branch with a chain: its head commit records how far its chain must reach.
        String replica = git.replica();
        for (Map.Entry<String, ObjectId> e : git.branches().entrySet()) {
            BranchName cn;
            try {
                cn = new BranchName(e.getKey()).onReplica(replica);
            } catch (IllegalArgumentException notOurs) {
                continue; // a name memoryd would not give a branch: it has no chain of ours
            }
            if (!e.getKey().equals(cfg.branch())
                    && Files.isDirectory(cfg.ledgerDir().resolve(cn.value()).resolve("0000"))) {
                LedgerTrailers.publishedHeadAt(git, e.getValue(), cn).ifPresent(h -> expected.put(cn, h));
            }
        }
        BranchName own = new BranchName(cfg.branch()).onReplica(replica);
        LedgerTrailers.publishedHeadAt(git, git.head(), own).ifPresent(h -> expected.put(own, h));
        // The key file, not the ring loaded at start: a rotation may have added a version since.
        // Linked chains the working tree lacks (a merged branch's, in a clone) are read from the commits that link
        // them.
        return Verifier.verify(
                cfg.ledgerDir(), KeyRing.loadExisting(cfg.keyFile()), expected, progress, new CommittedLedger(git));
    }

    /** Closes the repository; a {@link ServingRoot}'s view is closed by the serving root. */
    @Override
    public void close() {
        git.close();
    }
}
