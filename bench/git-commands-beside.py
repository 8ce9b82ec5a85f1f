#!/usr/bin/env python3
"""Git commands a human runs beside two writing agents, and what they leave behind.

Starts a daemon child on a fresh example root; two agents append items through its socket, RATE
times a second each, while a human loops over the KINDS given (comma-separated): `commit` (-am),
`amend`, `revert` (their own commit, or whatever HEAD is by then), `pull` (a merge from a clone
with commits of its own), `pullrebase`, `cherry` (their last commit picked again), `rebase`
(--force-rebase HEAD~3), `switch` (a side branch, a commit there, merged back) and `mv` (a memory
file renamed and committed). Afterwards: the acknowledged items missing at HEAD (a revert or a
cherry-pick may take some out by a commit of the human's own, which memoryd records as their
edit), `ledger verify` on the root and on a fresh clone, `git status`, and the git failures by
kind. Prints one JSON object; the root is kept for a look.

Usage: python3 bench/git-commands-beside.py daemon/target/memoryd.jar SECONDS RATE SEED KINDS"""
import json, os, random, subprocess, sys, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from beside import Daemon, HUMAN_ENV as env
jar = sys.argv[1]; seconds = float(sys.argv[2]); rate = float(sys.argv[3]); random.seed(int(sys.argv[4]))
kinds = sys.argv[5].split(",")
d = Daemon(jar, "git-commands-beside-")
tmp, root, key, connect = d.tmp, d.root, d.key, d.connect
stop = False; acked = {}; refused = {}
def agent(a, path, section):
    s = connect(); rf = s.makefile("rb"); i = 0; nxt = time.time()
    while not stop:
        i += 1; item = "a%d item %d" % (a, i)
        req = {"jsonrpc": "2.0", "id": i, "method": "write", "params": {"rationale": "r", "ops": [
            {"op": "append_item", "path": path, "section": section, "item": item}]}}
        s.sendall((json.dumps(req) + "\n").encode()); r = json.loads(rf.readline())
        if "result" in r: acked[item] = (path, r["result"].get("commit"))
        else: refused[item] = r["error"]
        nxt += 1.0 / rate; time.sleep(max(0, nxt - time.time()))
def git(*args, cwd=None):
    return subprocess.run(["git", "-C", cwd or root] + list(args), env=env, capture_output=True, text=True)
def retrying(*args, cwd=None):
    r = git(*args, cwd=cwd)
    for k in range(100):
        if r.returncode == 0 or ("index.lock" not in r.stderr and "cannot lock ref" not in r.stderr): break
        time.sleep(0.005 + 0.005 * k); r = git(*args, cwd=cwd)
    return r
connect().close(); time.sleep(2)
open(os.path.join(root, "human.txt"), "w").write("0\n"); git("add", "human.txt"); git("commit", "-qm", "human file")
clone = os.path.join(tmp, "other"); git("clone", "-q", root, clone, cwd=tmp)
agents = [threading.Thread(target=agent, args=(0, "users/sam/parts/inner-critic/profile.md", "Triggers")),
          threading.Thread(target=agent, args=(1, "users/sam/parts/young-one/profile.md", "Open Questions"))]
for t in agents: t.start()
end = time.time() + seconds; n = 0; log_actions = []
while time.time() < end:
    n += 1
    with open(os.path.join(root, "human.txt"), "a") as f: f.write("%d\n" % n)
    k = random.choice(kinds); res = None
    if k == "amend":
        res = retrying("commit", "-qa", "--amend", "--no-edit")
    elif k == "commit":
        res = retrying("commit", "-qam", "human %d" % n)
    elif k == "revert":  # a human's own commit reverted
        retrying("commit", "-qam", "human %d" % n)
        res = retrying("revert", "--no-edit", "HEAD")  # may revert memoryd's commit if it moved on
        if res.returncode != 0: retrying("revert", "--abort")
    elif k == "pull":
        with open(os.path.join(clone, "other-%d.txt" % n), "w") as f: f.write("x\n")
        git("add", "-A", cwd=clone); git("commit", "-qm", "other %d" % n, cwd=clone)
        retrying("commit", "-qam", "human %d" % n)
        res = retrying("pull", "-q", "--no-rebase", "--no-edit", clone, "main")
        if res.returncode != 0: retrying("merge", "--abort")
        git("pull", "-q", "--no-rebase", "--no-edit", root, "main", cwd=clone)
    elif k == "pullrebase":
        with open(os.path.join(clone, "other-%d.txt" % n), "w") as f: f.write("x\n")
        git("add", "-A", cwd=clone); git("commit", "-qm", "other %d" % n, cwd=clone)
        retrying("commit", "-qam", "human %d" % n)
        res = retrying("pull", "-q", "--rebase", clone, "main")
        if res.returncode != 0: retrying("rebase", "--abort")
        git("pull", "-q", "--no-rebase", "--no-edit", root, "main", cwd=clone)
    elif k == "mv":
        a = "users/sam/parts/young-one/profile.md"; b2 = "users/sam/parts/young-one/profile2.md"
        src, dst = (a, b2) if os.path.exists(os.path.join(root, a)) else (b2, a)
        retrying("mv", src, dst)
        res = retrying("commit", "-qm", "human %d: mv" % n)
    elif k == "cherry":
        retrying("commit", "-qam", "human %d" % n)
        retrying("branch", "-f", "side%d" % n)
        res = retrying("cherry-pick", "side%d" % n)
        if res.returncode != 0: retrying("cherry-pick", "--abort")
        git("branch", "-D", "side%d" % n)
    elif k == "rebase":
        retrying("commit", "-qam", "human %d" % n)
        res = retrying("rebase", "-q", "--force-rebase", "HEAD~3")
        if res.returncode != 0: retrying("rebase", "--abort")
    elif k == "switch":
        retrying("commit", "-qam", "human %d" % n)
        r1 = retrying("switch", "-q", "-c", "s%d" % n)
        with open(os.path.join(root, "human.txt"), "a") as f: f.write("side %d\n" % n)
        retrying("commit", "-qam", "side %d" % n)
        retrying("switch", "-q", "main")
        res = retrying("merge", "-q", "--no-edit", "s%d" % n)
        if res.returncode != 0: retrying("merge", "--abort")
    log_actions.append((n, k, None if res is None else res.returncode, None if res is None else res.stderr.strip()[:200]))
    time.sleep(random.random() * 0.2)
stop = True
for t in agents: t.join()
time.sleep(4)
retrying("commit", "-qam", "final")
time.sleep(3)
lost = []
for item, (path, commit) in acked.items():
    if ("- " + item + "\n") not in git("show", "HEAD:" + path).stdout:
        lost.append((item, commit))
v = d.cli("ledger", "verify")
c2 = os.path.join(tmp, "c2"); git("clone", "-q", root, c2, cwd=tmp)
v2 = subprocess.run(["java", "-jar", jar, "ledger", "verify", "--root", c2, "--key-file", key], capture_output=True, text=True)
st = git("status", "--porcelain").stdout
fails = {}
for a in log_actions:
    if a[2]: fails.setdefault(a[1], []).append(a[3])
print(json.dumps({"acked": len(acked), "refused": len(refused), "refused_sample": list(refused.values())[:3], "actions": n,
  "lost": len(lost), "lost_items": lost[:10], "verify": v.stdout.strip()[-300:] + v.stderr.strip()[-300:],
  "clone_verify": v2.stdout.strip()[-300:] + v2.stderr.strip()[-300:], "status": st[:500],
  "failed_actions": {k: (len(v), v[:8]) for k, v in fails.items()}, "root": tmp}, indent=1))
d.stop()
