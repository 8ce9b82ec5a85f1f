package dev.memoryd.daemon.write;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.api.Failure;
import dev.memoryd.daemon.git.IndexFormat;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * Whether git's index is in a form memoryd cannot read ({@link IndexFormat}: split or sparse), for
 * a daemon already serving: {@code serve} refuses such a root at its start, and a human may run
 * {@code git update-index --split-index} or set {@code core.splitIndex true} at any moment after.
 * While it is, each batch is refused before anything is captured or written, naming the cause and
 * the command that makes the index whole again; batches go on once it is, without a restart.
 *
 * <p>Thread-safety: the writer thread only; {@link #now} may be read from any thread.
 */
final class IndexFormatCheck {
    private final WriterState s;
    private volatile Optional<IndexFormat> last = Optional.empty();

    IndexFormatCheck(WriterState s) {
        this.s = s;
    }

    /** The form the last batch found (empty: a readable index), for {@code ping}. */
    Optional<IndexFormat> now() {
        return last;
    }

    /** Whether the index is readable now; a stat while memoryd's own index is in place. */
    boolean readable() throws IOException {
        last = s.index == null ? Optional.empty() : s.index.unreadableForm();
        return last.isEmpty();
    }

    /** The refusal of a batch while the index cannot be read; empty when it can. */
    Optional<Failure> refusal() throws IOException {
        if (readable()) {
            return Optional.empty();
        }
        IndexFormat f = last.get();
        return Optional.of(new Failure(
                ErrorReason.UNAVAILABLE,
                f.why() + "; nothing was written or captured. memoryd writes again once the index is whole ("
                        + f.fix(s.files.root()) + "): retry then",
                Map.of("index_format", f.kind())));
    }
}
