#!/usr/bin/env python3
"""A human's `git gc --prune=now` in a loop beside an agent whose writes become proposals, and
what they leave behind.

Starts a daemon child on a fresh example root, marks the Inner Critic's Role for review (a human's
edit, captured), then has one agent replace that Role as fast as the daemon answers, each write a
proposal on a branch of its own, while a human runs `git gc -q --prune=now` back to back for
SECONDS. Afterwards: every acknowledged proposal's branch holds its text, `git fsck`, `ledger
verify`, and no keep file left. Prints one JSON object; the root is kept for a look.

Usage: python3 bench/gc-beside.py daemon/target/memoryd.jar SECONDS"""
import json, os, subprocess, sys, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from beside import Daemon, HUMAN_ENV as env

jar = sys.argv[1]; seconds = float(sys.argv[2])
d = Daemon(jar, "gc-beside-")
root = d.root
s = d.connect(); rf = s.makefile("rb"); ids = [0]


def call(method, params):
    ids[0] += 1
    s.sendall((json.dumps({"jsonrpc": "2.0", "id": ids[0], "method": method, "params": params}) + "\n").encode())
    return json.loads(rf.readline())


P = "users/sam/parts/inner-critic/profile.md"
time.sleep(1)  # the daemon's first start records the example tree; the edit comes after it
with open(os.path.join(root, P)) as f:
    text = f.read()
with open(os.path.join(root, P), "w") as f:
    f.write(text.replace("    last_updated:", "    review_sections: [role]\n    last_updated:"))
c = call("capture", None)
if not c.get("result", {}).get("captured"):
    d.stop(); raise SystemExit("the review mark was not captured: %s" % c)
stop = False; gcs = {"runs": 0, "failed": 0, "sample": ""}


def human():
    while not stop:
        r = subprocess.run(["git", "-C", root, "gc", "-q", "--prune=now"], capture_output=True, text=True, env=env)
        gcs["runs"] += 1
        if r.returncode != 0:
            gcs["failed"] += 1; gcs["sample"] = gcs["sample"] or r.stderr.strip()[:200]


t = threading.Thread(target=human); t.start()
proposals = []; refused = []; n = 0; end = time.time() + seconds
while time.time() < end:
    n += 1
    r = call("write", {"rationale": "r", "actor": "agent", "ops": [
        {"op": "replace_section", "path": P, "section": "Role", "content": "Role proposal %d." % n}]})
    if "result" in r and r["result"].get("proposal"):
        proposals.append((r["result"]["proposal"], n))
    else:
        refused.append(json.dumps(r)[:200])
stop = True; t.join()
missing = []
for pid, k in proposals:
    o = subprocess.run(["git", "-C", root, "show", "proposals/%s:%s" % (pid, P)], capture_output=True, text=True)
    if o.returncode != 0 or ("Role proposal %d." % k) not in o.stdout:
        missing.append([pid, o.stderr.strip()[:120]])
fsck = subprocess.run(["git", "-C", root, "fsck", "--no-dangling"], capture_output=True, text=True)
verify = d.cli("ledger", "verify")
keeps = [f for f in os.listdir(os.path.join(root, ".git", "objects", "pack")) if f.endswith(".keep")]
d.stop()
print(json.dumps({"seconds": seconds, "proposals_acked": len(proposals), "refused": len(refused),
                  "refused_sample": refused[:2], "gc_runs": gcs["runs"], "gc_failed": gcs["failed"],
                  "gc_failure_sample": gcs["sample"], "proposals_missing": len(missing),
                  "missing_sample": missing[:3], "fsck": fsck.returncode, "fsck_out": (fsck.stdout + fsck.stderr)[:300],
                  "ledger_verify": (verify.stdout + verify.stderr).strip()[:200], "keep_files_left": keeps,
                  "root": root}, indent=1))
