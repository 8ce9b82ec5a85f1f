package dev.memoryd.daemon.locks;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.events.EventPayloads;
import dev.memoryd.daemon.events.SectionLockPayload;
import dev.memoryd.daemon.git.HumanActor;
import dev.memoryd.daemon.layout.RootLayout;
import dev.memoryd.daemon.write.WriteOutcome;
import dev.memoryd.daemon.write.WritePipeline;
import dev.memoryd.daemon.write.WriteRequest;
import dev.memoryd.grammar.RepoPath;
import java.util.concurrent.CompletableFuture;

/**
 * Users lock and unlock sections (file grammar §13: "Users may pin/lock sections"): each change
 * is a declaration of its own, one commit authored by that human and one {@link SectionLock}
 * event, so who locked what and why is in the ledger. Only a human's actor
 * ({@code human:Name <email>}, the form humans' own edits are recorded with) may; an agent is
 * refused with {@code prohibited}. Thread-safe.
 */
public final class SectionLocks {
    private final WritePipeline writer;

    public SectionLocks(WritePipeline writer) {
        this.writer = writer;
        registerReplayer(writer);
    }

    /** Registers how to redo a lock or unlock on {@code w} (any branch's writer). */
    public static void registerReplayer(WritePipeline w) {
        w.registerReplayer(SectionLock.OP, evs -> {
            SectionLockPayload p = EventPayloads.sectionLock(evs.get(0))
                    .orElseThrow(() -> new IllegalStateException(
                            "ledger line " + evs.get(0).seq() + " is a section lock without its section or state"));
            return new SectionLock(RepoPath.of(evs.get(0).filePath()), p.section(), p.locked());
        });
    }

    /** The anchors and headings a memory file's {@code slice.meta.locked_sections} lists. */
    public static java.util.Set<String> lockedIn(String text) {
        return java.util.Set.copyOf(LockedSections.of(
                dev.memoryd.grammar.frontmatter.Frontmatter.parse(text).tree()));
    }

    /**
     * Locks ({@code lock}) or unlocks section {@code section} (anchor or heading) of memory file
     * {@code path} on the checked-out branch; the future answers {@link WriteOutcome.Unchanged}
     * when it already was so, or the writer's refusal ({@code not_found}, {@code unknown_section}).
     */
    public Outcome<CompletableFuture<WriteOutcome>> set(
            String path, String section, boolean lock, String actor, String rationale) {
        if (!HumanActor.is(actor)) {
            return Outcome.fail(
                    ErrorReason.PROHIBITED,
                    "only a user locks or unlocks sections (file grammar §13): actor must be"
                            + " a human's, 'human:Name <email>'" + (actor == null ? "" : ", not '" + actor + "'"));
        }
        RepoPath p;
        try {
            p = RepoPath.of(path);
        } catch (IllegalArgumentException e) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "bad path: " + e.getMessage());
        }
        if (!RootLayout.isMemoryFile(p)) {
            return Outcome.fail(ErrorReason.INVALID_REQUEST, "path '" + path + "' is not a memory file (users/**.md)");
        }
        if (section.isBlank()) {
            return Outcome.fail(
                    ErrorReason.INVALID_REQUEST, "parameter 'section' must name a section (its heading or anchor)");
        }
        String why =
                rationale != null && !rationale.isBlank() ? rationale : (lock ? "locked" : "unlocked") + " by " + actor;
        return Outcome.ok(writer.submit(WriteRequest.of(new SectionLock(p, section, lock), why, actor)));
    }
}
