package dev.memoryd.daemon.write;

import dev.memoryd.daemon.write.WritePipeline.OntoFile;
import dev.memoryd.grammar.RepoPath;
import dev.memoryd.grammar.SectionHasher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code replay --onto-latest} as the writer runs it (see {@link WritePipeline#ontoLatest}): the
 * snapshots read, brought up to date ({@link OntoLatest}) and written, then queued for capture or
 * flagged as drift. Thread-safety: on the writer thread only.
 */
final class OntoLatestRun {
    private final WriterState s;
    private final Consumer<WriteRequest> submit;
    private final Consumer<List<RepoPath>> capture;

    OntoLatestRun(WriterState s, Consumer<WriteRequest> submit, Consumer<List<RepoPath>> capture) {
        this.s = s;
        this.submit = submit;
        this.capture = capture;
    }

    List<OntoFile> run(java.util.function.IntFunction<SectionHasher> hasherFor) throws IOException {
        Map<RepoPath, String> snaps = new LinkedHashMap<>();
        for (RepoPath p : HumanIntake.memoryFilesOnDisk(s.files.root())) {
            Optional<String> disk = s.files.read(p);
            if (disk.isPresent() && !disk.equals(s.recordedText(p))) {
                snaps.put(p, disk.get());
            }
        }
        List<OntoLatest.Result> rs =
                new OntoLatest(s.grammarInForce(), s.chain, hasherFor).run(snaps, s.replayers::mutationFor);
        Map<String, byte[]> write = new LinkedHashMap<>();
        OntoLatest.changed(rs, snaps).forEach((p, t) -> write.put(p.value(), t.getBytes(StandardCharsets.UTF_8)));
        s.files.writeAll(write);
        List<OntoFile> out = new ArrayList<>();
        List<RepoPath> capture = new ArrayList<>();
        for (OntoLatest.Result r : rs) {
            out.add(new OntoFile(r.path().value(), r.outcome(), r.applied(), r.reanchored(), r.halt()));
            if (r.halt() != null) {
                String text = r.text();
                RepoPath path = r.path();
                String reason = r.halt();
                Contextual flag = ctx -> (src, now) -> new Mutation.Done(
                        Map.of(),
                        List.of(HumanCapture.flagged(
                                path,
                                ctx.drift().openOn(path).map(DriftView.Item::id).orElseGet(ctx::newId),
                                new dev.memoryd.grammar.human.HumanEdits.Breaks("replay_halted", reason, List.of()),
                                text,
                                OntoLatest.source())),
                        true);
                submit.accept(WriteRequest.of(flag, "replay --onto-latest halted " + path.value(), "memoryd-replay"));
            } else {
                capture.add(r.path());
            }
        }
        if (!capture.isEmpty()) {
            this.capture.accept(capture);
        }
        return out;
    }
}
