package dev.memoryd.daemon.write;

import dev.memoryd.grammar.RepoPath;

/** The ledger's identity fields, derived from a memory file's path (docs/DESIGN.md layout). */
record EntityRef(String userId, String entityType, String entityId) {
    static EntityRef of(RepoPath path) {
        String[] s = path.value().split("/");
        if (s.length < 3 || !s[0].equals("users")) {
            return new EntityRef(null, null, null);
        }
        String user = s[1];
        boolean notes = s[s.length - 1].equals("notes.md");
        if (s.length == 3) {
            return new EntityRef(user, notes ? "note" : "user", user);
        }
        if (s.length == 5 && s[2].equals("parts")) {
            return new EntityRef(user, notes ? "note" : "part", s[3]);
        }
        if (s.length == 5 && s[2].equals("relationships")) {
            return new EntityRef(user, notes ? "note" : "relationship", s[3]);
        }
        return new EntityRef(user, null, null);
    }
}
