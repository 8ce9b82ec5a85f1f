package dev.memoryd.daemon.console;

import java.io.IOException;
import java.nio.file.Path;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * Who the console's decisions are recorded as when {@code --actor} is not given: the root's git
 * identity ({@code user.name} and {@code user.email}, as git itself resolves them), in the form
 * the daemon records humans' own edits with, {@code human:Name <email>}, so a decision made in
 * the console is attributed (and its commit authored) as that person's. The daemon's own rule for
 * that form is {@code git.HumanActor}, which the console, a client of the socket, does not reach.
 */
final class ConsoleActor {
    private ConsoleActor() {}

    static String of(Path root) throws IOException {
        try (Repository repo = new FileRepositoryBuilder()
                .setGitDir(root.resolve(".git").toFile())
                .setMustExist(true)
                .build()) {
            PersonIdent who = new PersonIdent(repo);
            return "human:" + who.getName() + " <" + who.getEmailAddress() + ">";
        }
    }
}
