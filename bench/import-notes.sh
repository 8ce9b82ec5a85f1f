#!/bin/bash
# Times `memoryd import` of 2,000 one-paragraph notes (~90 bytes each) into users/sam/notes.md of a
# fresh root made from this tree's example users, served with the launcher's JVM options.
# usage: bench/import-notes.sh TREE   (TREE: a built checkout, e.g. . or another worktree)
# WARM=1 first imports the same notes into a part's notes file, so the daemon's JIT is warm.
# EXTRA adds JVM options to the daemon after the launcher's, so it may also replace one of them
# (e.g. a JFR recording, another -Xms). The import runs as a person runs it, `bin/memoryd import`
# (the launcher's settings for a short command). Prints the wall time, the daemon's CPU over the
# import (from /proc/<pid>/stat) and the CLI's JSON summary.
set -euo pipefail
W=$(cd "$1" && pwd); J=$W/daemon/target/memoryd.jar
T=$(mktemp -d /tmp/memoryd-import.XXXX); export MEMORYD_KEY_FILE=$T/key
trap 'kill ${DP:-} 2>/dev/null || true; rm -rf "$T"' EXIT # the daemon too, when the import fails
mkdir -p "$T/notes"
python3 - "$T/notes" <<'PY'
import sys, random
r = random.Random(7)
w = "part needs trigger protector calm morning walk sister letter work anxious hopeful".split()
for i in range(2000):
    open(f"{sys.argv[1]}/note-{i:04d}.md", "w").write(" ".join(r.choice(w) for _ in range(14)) + ".\n")
PY
java -jar "$J" init --root "$T/root" --example "$W/users" > /dev/null
java $(grep -v '^#' "$W/bin/serve-jvm.options" | grep -v '^$' | tr '\n' ' ') ${EXTRA:-} \
    -jar "$J" serve --root "$T/root" --quiet-ms 2000 > "$T/serve.log" 2>&1 &
DP=$!
for _ in $(seq 100); do [ -S "$T/root/.memoryd/memoryd.sock" ] && break; sleep 0.2; done
sleep 1
if [ -n "${WARM:-}" ]; then
    "$W/bin/memoryd" import "$T/notes" --root "$T/root" --user sam --part young-one --override-rationale warm --json > /dev/null
fi
c0=$(awk '{print $14+$15}' /proc/$DP/stat); t0=$(date +%s.%N)
"$W/bin/memoryd" import "$T/notes" --root "$T/root" --user sam --override-rationale "imported notes" --json > "$T/imp.json"
t1=$(date +%s.%N); c1=$(awk '{print $14+$15}' /proc/$DP/stat)
python3 - "$t0" "$t1" "$c0" "$c1" "$T/imp.json" <<'PY'
import sys, json
t0, t1, c0, c1 = map(float, sys.argv[1:5])
s = json.load(open(sys.argv[5]))
print(json.dumps({"wall_s": round(t1 - t0, 3), "daemon_cpu_s": round((c1 - c0) / 100, 2),
                  "files": s["files"], "imported": s["imported"], "files_per_s": s["files_per_s"]}))
PY
kill $DP; wait $DP 2>/dev/null || true
