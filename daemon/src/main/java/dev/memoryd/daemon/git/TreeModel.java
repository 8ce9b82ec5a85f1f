package dev.memoryd.daemon.git;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.TreeFormatter;

/**
 * In-memory image of one branch's tree that re-hashes only the directories on changed paths,
 * so the cost of a commit depends on the depth and fan-out of what changed, not on history.
 *
 * <p>Not thread-safe: owned by the single writer.
 */
final class TreeModel {
  private static final class Dir {
    final Map<String, Object> entries = new HashMap<>(); // ObjectId (blob) or Dir
    ObjectId id; // null when dirty
  }

  private final Dir root = new Dir();

  /** Sets a file's blob; creates parent directories. */
  void put(String path, ObjectId blob) {
    String[] parts = path.split("/");
    Dir d = root;
    d.id = null;
    for (int i = 0; i < parts.length - 1; i++) {
      Object next = d.entries.get(parts[i]);
      if (!(next instanceof Dir)) {
        next = new Dir();
        d.entries.put(parts[i], next);
      }
      d = (Dir) next;
      d.id = null;
    }
    d.entries.put(parts[parts.length - 1], blob);
  }

  /** The blob at a path, or null. */
  ObjectId blob(String path) {
    String[] parts = path.split("/");
    Dir d = root;
    for (int i = 0; i < parts.length - 1; i++) {
      Object next = d.entries.get(parts[i]);
      if (!(next instanceof Dir)) {
        return null;
      }
      d = (Dir) next;
    }
    Object o = d.entries.get(parts[parts.length - 1]);
    return o instanceof ObjectId ? (ObjectId) o : null;
  }

  ObjectId write(ObjectInserter ins) throws IOException {
    return write(root, ins);
  }


  private static ObjectId write(Dir d, ObjectInserter ins) throws IOException {
    if (d.id != null) {
      return d.id;
    }
    List<Map.Entry<String, Object>> list = new ArrayList<>(d.entries.entrySet());
    // Git orders tree entries by name bytes, a directory sorting as if its name ended in '/'.
    list.sort((a, b) -> compare(sortKey(a), sortKey(b)));
    TreeFormatter tf = new TreeFormatter();
    for (Map.Entry<String, Object> e : list) {
      if (e.getValue() instanceof Dir) {
        tf.append(e.getKey(), FileMode.TREE, write((Dir) e.getValue(), ins));
      } else {
        tf.append(e.getKey(), FileMode.REGULAR_FILE, (ObjectId) e.getValue());
      }
    }
    d.id = ins.insert(tf);
    return d.id;
  }

  private static byte[] sortKey(Map.Entry<String, Object> e) {
    String k = e.getValue() instanceof Dir ? e.getKey() + "/" : e.getKey();
    return k.getBytes(StandardCharsets.UTF_8);
  }

  private static int compare(byte[] a, byte[] b) {
    int n = Math.min(a.length, b.length);
    for (int i = 0; i < n; i++) {
      int c = (a[i] & 0xff) - (b[i] & 0xff);
      if (c != 0) {
        return c;
      }
    }
    return a.length - b.length;
  }
}
