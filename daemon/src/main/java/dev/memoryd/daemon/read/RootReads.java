package dev.memoryd.daemon.read;

import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.grammar.slices.LinkGraph;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/** The reads that take a path or slice id, which a mounted peer's {@code NAME:} reference may route elsewhere. */
public interface RootReads {
    /** A memory file or one section; without {@code hashes}, no hashes and no key needed. */
    Outcome<ReadResult> read(String path, String section, String at, boolean hashes) throws IOException;

    /** The typed links from a slice id. */
    Outcome<List<LinkGraph.ExploredLink>> explore(String id, String rel, boolean infer) throws IOException;

    /** The text of slice {@code id}. */
    Optional<String> sliceText(String id) throws IOException;
}
