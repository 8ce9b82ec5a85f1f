package dev.memoryd.daemon.write;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.memoryd.daemon.ErrorReason;
import dev.memoryd.daemon.Failure;
import dev.memoryd.grammar.ApplyResult;
import dev.memoryd.grammar.Declarations;
import dev.memoryd.grammar.FileSource;
import dev.memoryd.grammar.Grammar;
import dev.memoryd.grammar.Op;
import dev.memoryd.grammar.OpCodec;
import dev.memoryd.grammar.OpOutcome;
import dev.memoryd.grammar.SectionHasher;

/** The memory-file ops of one declaration; each op that changed something is one event. */
record GrammarMutation(Grammar grammar, List<Op> ops, SectionHasher hasher, boolean replay) implements Mutation {
  GrammarMutation(Grammar grammar, List<Op> ops, SectionHasher hasher) {
    this(grammar, ops, hasher, false);
  }

  @Override
  public Result apply(FileSource files, Instant now) {
    ApplyResult r = replay ? Declarations.replay(grammar, files, ops, now, hasher)
        : Declarations.apply(grammar, files, ops, now, hasher);
    if (r instanceof ApplyResult.Rejected rej) {
      return new Refused(rej.opIndex(), new Failure(ErrorReason.fromWire(rej.reason().wireName()),
          rej.message(), rej.details()));
    }
    ApplyResult.Applied a = (ApplyResult.Applied) r;
    List<EventSpec> events = new ArrayList<>();
    for (OpOutcome o : a.outcomes()) {
      if (!o.changed()) {
        continue;
      }
      ObjectNode payload = JsonNodeFactory.instance.objectNode();
      payload.set("op", OpCodec.toJson(o.op()));
      events.add(new EventSpec(o.op().opName(), o.path(), o.sectionAnchor(), o.beforeHash(),
          o.afterHash(), payload, o.op().evidenceRefs() == null ? List.of() : o.op().evidenceRefs(),
          o.summary()));
    }
    return new Done(a.newContents(), events, a.changed());
  }
}
