package dev.memoryd.daemon.cli;

import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code memoryd promotions accept}. */
@Command(
        name = "accept",
        description = {MethodSummaries.PROMOTIONS_ACCEPT, "Every file of its type is migrated, in one commit."})
final class PromotionsAccept extends GrammarChange {
    @Option(names = "--file-type", required = true, description = "user, part or relationship")
    String fileType;

    @Option(names = "--heading", required = true, description = "the H3 heading to promote")
    String heading;

    @Option(names = "--kind", defaultValue = "narrative", description = "the new section's kind: narrative or list")
    String kind;

    @Override
    public Integer call() throws IOException {
        return out.call(
                config(),
                "promotions.accept",
                params().put("file_type", fileType).put("heading", heading).put("kind", kind));
    }
}
