package dev.memoryd.daemon.cli;

/**
 * Each protocol method's one-line summary from the method catalogue, as constants a command's
 * {@code @Command(description)} can name (an annotation takes only constants, and reading the
 * catalogue itself at start would cost a command its fast start). Generated from
 * {@code methods.yaml} by {@code CliCatalogueTest}, which fails when this file and the catalogue
 * differ and rewrites it when run with {@code -Dmemoryd.cli.write=true}; do not edit by hand.
 */
final class MethodSummaries {
    private MethodSummaries() {}

    /** {@code ping}. */
    static final String PING = "Daemon status and health.";

    /** {@code write}. */
    static final String WRITE = "Apply section-level ops to memory files, all or nothing, as one commit.";

    /** {@code read}. */
    static final String READ = "A memory file or one section, with its hash.";

    /** {@code files}. */
    static final String FILES = "Every memory file at the head commit.";

    /** {@code changes}. */
    static final String CHANGES = "The memory files changed since a commit.";

    /** {@code lint}. */
    static final String LINT = "Check memory files against the grammar.";

    /** {@code history}. */
    static final String HISTORY = "The ledger events of a file or section, newest first.";

    /** {@code resolve}. */
    static final String RESOLVE = "The event an evidence token names.";

    /** {@code sections.list}. */
    static final String SECTIONS_LIST =
            "Each section of a memory file with its text and the event that last changed it.";

    /** {@code sections.history}. */
    static final String SECTIONS_HISTORY = "One section's events, newest first, a page at a time.";

    /** {@code sections.lock}. */
    static final String SECTIONS_LOCK = "Lock one section of a memory file (users only).";

    /** {@code sections.unlock}. */
    static final String SECTIONS_UNLOCK = "Unlock one section of a memory file (users only).";

    /** {@code ledger.verify}. */
    static final String LEDGER_VERIFY = "Verify every ledger chain.";

    /** {@code slip.send}. */
    static final String SLIP_SEND = "Send a SLIP message to another agent.";

    /** {@code slip.recv}. */
    static final String SLIP_RECV = "Receive queued SLIP messages for an agent.";

    /** {@code conversation.append}. */
    static final String CONVERSATION_APPEND = "Store conversation turns for a session.";

    /** {@code context}. */
    static final String CONTEXT = "The context slice SlicePolicy v1 selects around a turn.";

    /** {@code explore}. */
    static final String EXPLORE = "Typed links from a slice id.";

    /** {@code slices.create}. */
    static final String SLICES_CREATE = "Create a generic slice.";

    /** {@code slices.list}. */
    static final String SLICES_LIST = "Every slice, FRESH or STALE, with its age.";

    /** {@code slices.rows}. */
    static final String SLICES_ROWS = "The rows of a JSONL slice.";

    /** {@code routine.compile}. */
    static final String ROUTINE_COMPILE = "A routine slice compiled into executable markdown.";

    /** {@code append_row}. */
    static final String APPEND_ROW = "Append one row to a JSONL slice.";

    /** {@code search}. */
    static final String SEARCH = "Full-text search over memory, slices and chunks.";

    /** {@code ledger.rotate_key}. */
    static final String LEDGER_ROTATE_KEY = "Make a new ledger key version current.";

    /** {@code drift.list}. */
    static final String DRIFT_LIST = "Open drift items.";

    /** {@code drift.show}. */
    static final String DRIFT_SHOW = "One drift item with its diff.";

    /** {@code drift.resolve}. */
    static final String DRIFT_RESOLVE = "Resolve a drift item.";

    /** {@code capture}. */
    static final String CAPTURE = "Capture humans' edits now.";

    /** {@code notes.import}. */
    static final String NOTES_IMPORT = "Import markdown notes into an entity's notes file, one declaration per note.";

    /** {@code replay}. */
    static final String REPLAY = "Verify the ledger replays to the tree, or replay onto the latest state.";

    /** {@code declare}. */
    static final String DECLARE = "Create, change, place or remove chunks, all or nothing.";

    /** {@code scope}. */
    static final String SCOPE = "The chunks placed on every given scope.";

    /** {@code traverse}. */
    static final String TRAVERSE = "Walk the chunk graph from a chunk.";

    /** {@code stale}. */
    static final String STALE = "The stale derived chunks under a derivation scope.";

    /** {@code proposals.list}. */
    static final String PROPOSALS_LIST = "Proposals waiting for review.";

    /** {@code proposals.show}. */
    static final String PROPOSALS_SHOW = "One proposal.";

    /** {@code proposals.accept}. */
    static final String PROPOSALS_ACCEPT = "Apply a proposal.";

    /** {@code proposals.reject}. */
    static final String PROPOSALS_REJECT = "Reject a proposal.";

    /** {@code promotions.list}. */
    static final String PROMOTIONS_LIST =
            "Extensions subsections that recur, proposed for promotion to a core section.";

    /** {@code promotions.accept}. */
    static final String PROMOTIONS_ACCEPT =
            "Promote a recurring Extensions subsection to a core section (maintainers).";

    /** {@code promotions.reject}. */
    static final String PROMOTIONS_REJECT = "Turn down a proposed promotion so it is not proposed again (maintainers).";

    /** {@code grammar.set_cap}. */
    static final String GRAMMAR_SET_CAP = "Tune a section's soft cap (maintainers).";

    /** {@code grammar.set_kind}. */
    static final String GRAMMAR_SET_KIND = "Make a section narrative or list (maintainers).";

    /** {@code refs.add}. */
    static final String REFS_ADD = "Pin a reference to a file in a Git repository.";

    /** {@code refs.reconcile}. */
    static final String REFS_RECONCILE = "Check every reference against its repository.";

    /** {@code refs.repin}. */
    static final String REFS_REPIN = "Pin a reference to its file as it is now.";

    /** {@code refs.retire}. */
    static final String REFS_RETIRE = "Retire a reference.";

    /** {@code refs.list}. */
    static final String REFS_LIST = "File references.";

    /** {@code sync}. */
    static final String SYNC = "Fetch, merge and push with a Git remote.";

    /** {@code branch.create}. */
    static final String BRANCH_CREATE = "Create a branch.";

    /** {@code branch.list}. */
    static final String BRANCH_LIST = "Local branches.";

    /** {@code branch.delete}. */
    static final String BRANCH_DELETE = "Delete a branch.";

    /** {@code branch.merge}. */
    static final String BRANCH_MERGE = "Merge one branch into another, section by section.";
}
