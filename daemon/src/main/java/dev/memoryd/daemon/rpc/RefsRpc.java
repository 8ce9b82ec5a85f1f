package dev.memoryd.daemon.rpc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.memoryd.daemon.api.ErrorReason;
import dev.memoryd.daemon.Memoryd;
import dev.memoryd.daemon.api.Outcome;
import dev.memoryd.daemon.refs.RefStore;

/**
 * The {@code refs} group: the {@code refs.*} socket methods, parameter checks and one
 * {@link RefStore} call each.
 *
 * <ul>
 * <li>{@code refs.add {path, repo?, section?, placed_on, actor?}}: placed_on is a string or an array of strings</li>
 * <li>{@code refs.reconcile {actor?}}</li>
 * <li>{@code refs.repin {id, actor?, note?}} and {@code refs.retire {id, actor?, note?}}: id is the
 *     reference's id or its open drift item's id</li>
 * <li>{@code refs.list {all?}}</li>
 * </ul>
 */
final class RefsRpc implements Namespace {
  private static final List<String> METHODS = List.of("refs.add", "refs.reconcile", "refs.repin", "refs.retire", "refs.list");

  private final Memoryd svc;

  RefsRpc(Memoryd svc) {
    this.svc = svc;
  }

  @Override
  public String group() {
    return "refs";
  }

  @Override
  public Map<String, Handler> routes() {
    Map<String, Handler> r = new LinkedHashMap<>();
    for (String m : METHODS) {
      r.put(m, p -> {
        java.util.Optional<dev.memoryd.daemon.api.Failure> onPeer = onPeer(m, p);
        if (onPeer.isPresent()) {
          throw new BadRequest(onPeer.get());
        }
        return Replies.unwrap(call(svc.refs(), m, p));
      });
    }
    return r;
  }

  /**
   * {@code prohibited} naming the peer when a reference write names a peer's file, slice or
   * reference: the file of {@code refs.add} (in the served root's repository), what it is placed
   * on, the id {@code refs.repin} and {@code refs.retire} change.
   */
  private java.util.Optional<dev.memoryd.daemon.api.Failure> onPeer(String method, ObjectNode p) {
    List<String> refs = new ArrayList<>();
    if (method.equals("refs.add")) {
      if (!p.hasNonNull("repo")) {
        refs.add(p.path("path").asText(null));
      }
      JsonNode on = p.get("placed_on");
      if (on != null && on.isTextual()) {
        refs.add(on.asText());
      } else if (on != null && on.isArray()) {
        on.forEach(x -> refs.add(x.isTextual() ? x.asText() : null));
      }
    } else if (method.equals("refs.repin") || method.equals("refs.retire")) {
      refs.add(p.path("id").asText(null));
    }
    for (String ref : refs) {
      java.util.Optional<dev.memoryd.daemon.api.Failure> f = svc.peers().refuseWrite(ref, method);
      if (f.isPresent()) {
        return f;
      }
    }
    return java.util.Optional.empty();
  }

  static Outcome<ObjectNode> call(RefStore refs, String method, ObjectNode p) throws IOException {
    try {
      switch (method) {
        case "refs.add": {
          only(p, "path", "repo", "section", "placed_on", "actor");
          return refs.add(file(p, "path", true), file(p, "repo", false), str(p, "section", false), placedOn(p),
              str(p, "actor", false));
        }
        case "refs.reconcile":
          only(p, "actor");
          return refs.reconcile(str(p, "actor", false));
        case "refs.repin":
          only(p, "id", "actor", "note");
          return refs.repin(str(p, "id", true), str(p, "actor", false), str(p, "note", false));
        case "refs.retire":
          only(p, "id", "actor", "note");
          return refs.retire(str(p, "id", true), str(p, "actor", false), str(p, "note", false));
        case "refs.list": {
          only(p, "all");
          JsonNode all = p.get("all");
          if (all != null && !all.isBoolean()) {
            throw new Bad("parameter 'all' must be a boolean");
          }
          return Outcome.ok(refs.list(all != null && all.asBoolean()));
        }
        default:
          throw new IllegalArgumentException("not a refs method: " + method);
      }
    } catch (Bad e) {
      return Outcome.fail(ErrorReason.INVALID_REQUEST, e.getMessage());
    }
  }

  /** A malformed parameter. */
  private static final class Bad extends Exception {
    Bad(String message) {
      super(message, null, false, false);
    }
  }

  private static List<String> placedOn(ObjectNode p) throws Bad {
    JsonNode n = p.get("placed_on");
    if (n == null || n.isNull()) {
      throw new Bad("missing parameter 'placed_on' (the memory file(s) or slice id(s) the reference belongs to)");
    }
    List<String> out = new ArrayList<>();
    if (n.isTextual()) {
      out.add(n.asText());
    } else if (n.isArray() && !n.isEmpty()) {
      for (JsonNode x : n) {
        if (!x.isTextual()) {
          throw new Bad("placed_on must be a string or an array of strings");
        }
        out.add(x.asText());
      }
    } else {
      throw new Bad("placed_on must be a string or a non-empty array of strings");
    }
    return out;
  }

  private static void only(ObjectNode p, String... allowed) throws Bad {
    Set<String> ok = Set.of(allowed);
    for (Iterator<String> it = p.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!ok.contains(f)) {
        throw new Bad("unknown parameter '" + f + "'; expected " + String.join(", ", allowed));
      }
    }
  }

  /** A file system path parameter: no control character (a NUL cannot be in a file name at all). */
  private static String file(ObjectNode p, String name, boolean required) throws Bad {
    String v = str(p, name, required);
    for (int i = 0; v != null && i < v.length(); i++) {
      if (v.charAt(i) < 0x20 || v.charAt(i) == 0x7f) {
        throw new Bad("parameter '" + name + "' contains control character U+%04X at index %d; a file path holds none"
            .formatted((int) v.charAt(i), i));
      }
    }
    return v;
  }

  private static String str(ObjectNode p, String name, boolean required) throws Bad {
    JsonNode n = p.get(name);
    if (n == null || n.isNull()) {
      if (required) {
        throw new Bad("missing parameter '" + name + "'");
      }
      return null;
    }
    if (!n.isTextual()) {
      throw new Bad("parameter '" + name + "' must be a string");
    }
    return n.asText();
  }
}
