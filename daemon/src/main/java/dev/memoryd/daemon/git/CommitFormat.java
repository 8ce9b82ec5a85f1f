package dev.memoryd.daemon.git;

import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jgit.lib.PersonIdent;

/**
 * The form of the commits memoryd makes: message (subject, rationale, actor and trailers) and
 * author and committer identities. The trailer names are part of the repository format: readers
 * of history ({@link LedgerTrailers}, {@code replay}, auditors) find a commit's ledger head by
 * them. Stateless and thread-safe.
 */
public final class CommitFormat {
    /** {@code seq:line_hash} of the ledger line the commit publishes up to. */
    public static final String TRAILER_HEAD = "Memoryd-Ledger-Head";
    /** Names the chain of the ledger-head trailer when it is a replica's ({@code main@laptop}); absent: the branch's own. */
    public static final String TRAILER_CHAIN = "Memoryd-Ledger-Chain";
    /** One per event the commit publishes. */
    public static final String TRAILER_EVENT = "Memoryd-Event";

    private static final Pattern HUMAN = Pattern.compile("human:(.*) <(.*)>");
    /** Compiled once: {@code String.replaceAll} compiled it per commit. */
    private static final Pattern UNSAFE_MAIL = Pattern.compile("[^A-Za-z0-9._-]");

    private CommitFormat() {}

    /** A memoryd commit message: subject, rationale, actor, event ids and the ledger-head trailer. */
    public static String message(
            List<String> summaries,
            String rationale,
            String actor,
            List<String> eventIds,
            long headSeq,
            String headHash) {
        return message(summaries, rationale, actor, eventIds, headSeq, headHash, null);
    }

    /** As {@link #message}, naming the chain of the head in a {@value #TRAILER_CHAIN} trailer when not null. */
    public static String message(
            List<String> summaries,
            String rationale,
            String actor,
            List<String> eventIds,
            long headSeq,
            String headHash,
            String chain) {
        String subject = "memoryd: " + String.join("; ", summaries);
        if (subject.length() > 72) {
            subject = subject.substring(0, 69) + "...";
        }
        StringBuilder sb = new StringBuilder(subject).append("\n\n");
        if (rationale != null && !rationale.isBlank()) {
            sb.append(rationale.strip()).append("\n\n");
        }
        sb.append("Memoryd-Actor: ").append(actor).append('\n');
        for (String id : eventIds) {
            sb.append(TRAILER_EVENT).append(": ").append(id).append('\n');
        }
        sb.append(TRAILER_HEAD)
                .append(": ")
                .append(headSeq)
                .append(':')
                .append(headHash)
                .append('\n');
        if (chain != null) {
            sb.append(TRAILER_CHAIN).append(": ").append(chain).append('\n');
        }
        return sb.toString();
    }

    /** The author of a declaration's commit: a human ({@code human:Name <mail>}) as themselves, an agent under {@code agents.memoryd}. */
    public static PersonIdent author(String actor, Instant now) {
        Matcher h = HUMAN.matcher(actor);
        if (h.matches()) {
            return new PersonIdent(h.group(1), h.group(2), now, java.time.ZoneOffset.UTC);
        }
        String safe = UNSAFE_MAIL.matcher(actor).replaceAll("-");
        return new PersonIdent(actor, safe + "@agents.memoryd", now, java.time.ZoneOffset.UTC);
    }

    /** Whether {@code author} is an agent's identity as {@link #author} makes it (a mail under {@code agents.memoryd}). */
    public static boolean isAgentAuthor(PersonIdent author) {
        return author.getEmailAddress().endsWith("@agents.memoryd");
    }

    /** Whether {@code committer} is memoryd's identity ({@link #committer}), whatever the time. */
    public static boolean isMemoryd(PersonIdent committer) {
        PersonIdent m = committer(Instant.EPOCH);
        return committer.getName().equals(m.getName())
                && committer.getEmailAddress().equals(m.getEmailAddress());
    }

    /** memoryd, the committer of every commit it makes. */
    public static PersonIdent committer(Instant now) {
        return new PersonIdent("memoryd", "memoryd@localhost", now, java.time.ZoneOffset.UTC);
    }
}
