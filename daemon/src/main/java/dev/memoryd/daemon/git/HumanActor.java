package dev.memoryd.daemon.git;

import java.util.regex.Pattern;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;

/**
 * The form a person's actor takes, {@code human:Name <email>}: how humans' own edits are recorded,
 * and what the decisions only a person makes (locking sections, changing the grammar, accepting or
 * rejecting a proposal, resolving drift) require. Stateless.
 */
public final class HumanActor {
    private static final Pattern FORM = Pattern.compile("human:[^<>\\r\\n]+ <[^<>\\r\\n]+>");

    private HumanActor() {}

    /** Whether {@code actor} is a person's. */
    public static boolean is(String actor) {
        return actor != null && FORM.matcher(actor).matches();
    }

    /** {@code who} as an actor. */
    public static String of(PersonIdent who) {
        return "human:" + who.getName() + " <" + who.getEmailAddress() + ">";
    }

    /** The person {@code repo}'s git identity names ({@code user.name}, {@code user.email}, as git resolves them). */
    public static String of(Repository repo) {
        return of(new PersonIdent(repo));
    }

    /** {@code actor}, or when none is given the person {@code repo}'s git identity names. */
    public static String orIdentity(String actor, Repository repo) {
        return actor != null ? actor : of(repo);
    }

    /** Why {@code actor} may not make a decision only a person makes ({@code what}, e.g. "resolves drift"). */
    public static String refusal(String what, String actor) {
        return "only a person " + what + ": actor must be a human's, 'human:Name <email>'"
                + (actor == null ? "" : ", not '" + actor + "'");
    }
}
