package dev.memoryd.daemon.cli;

import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code memoryd promotions reject}. */
@Command(
        name = "reject",
        description = {MethodSummaries.PROMOTIONS_REJECT, "The refusal is recorded."})
final class PromotionsReject extends GrammarChange {
    @Option(names = "--file-type", required = true, description = "user, part or relationship")
    String fileType;

    @Option(names = "--heading", required = true, description = "the H3 heading not to promote")
    String heading;

    @Override
    public Integer call() throws IOException {
        return out.call(
                config(),
                "promotions.reject",
                params().put("file_type", fileType).put("heading", heading));
    }
}
