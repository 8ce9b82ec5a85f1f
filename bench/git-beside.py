#!/usr/bin/env python3
"""How often a human's `git commit -am` fails beside an agent writing through memoryd's socket.

Starts a daemon child on a fresh example root, has one agent append an item RATE times a second,
and commits a file of the human's own with `git commit -am` every 20-80 ms for SECONDS; prints
one JSON line: attempts, failures by cause (index.lock busy, ref lost), `git status` once quiet,
and the daemon's per-batch write_stats (index_held_ms: how long git commands were kept out).

Usage: python3 bench/git-beside.py daemon/target/memoryd.jar [SECONDS [RATE]]"""
import json, os, socket, subprocess, sys, tempfile, threading, time, random

jar = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 30.0
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 40.0
tmp = tempfile.mkdtemp(prefix="gitbusy-")
root, key = os.path.join(tmp, "memory"), os.path.join(tmp, "key")
users = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "users")
subprocess.run(["java", "-jar", jar, "init", "--root", root, "--example", users, "--key-file", key], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
subprocess.run(["git", "-C", root, "config", "user.email", "h@example.org"], check=True)
subprocess.run(["git", "-C", root, "config", "user.name", "Human"], check=True)
with open(os.path.join(root, "human.txt"), "w") as f:
    f.write("0\n")
subprocess.run(["git", "-C", root, "add", "human.txt"], check=True)
subprocess.run(["git", "-C", root, "commit", "-qm", "human file"], check=True)
log = open(os.path.join(tmp, "daemon.log"), "w")
d = subprocess.Popen(["java", "-jar", jar, "serve", "--root", root, "--key-file", key], stdout=log, stderr=log)
sock = os.path.join(root, ".memoryd", "memoryd.sock")
for _ in range(300):
    if os.path.exists(sock):
        break
    time.sleep(0.1)
for _ in range(100):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(sock); break
    except OSError:
        time.sleep(0.1)
rf = s.makefile("rb")
stop = False; acked = 0; refused = 0
def agent():
    global acked, refused
    i = 0; nxt = time.time()
    while not stop:
        i += 1
        req = {"jsonrpc": "2.0", "id": i, "method": "write", "params": {"rationale": "r", "ops": [{"op": "append_item",
               "path": "users/sam/parts/inner-critic/profile.md", "section": "Open Questions", "item": "q%d" % i}]}}
        s.sendall((json.dumps(req) + "\n").encode()); r = json.loads(rf.readline())
        if "result" in r: acked += 1
        else: refused += 1
        nxt += 1.0 / rate
        time.sleep(max(0, nxt - time.time()))
time.sleep(2)
t = threading.Thread(target=agent); t.start()
end = time.time() + seconds
commits = cfail = statuses = sfail = 0; reasons = {}
n = 0
while time.time() < end:
    n += 1
    with open(os.path.join(root, "human.txt"), "w") as f:
        f.write("%d\n" % n)
    r = subprocess.run(["git", "-C", root, "commit", "-qam", "human %d" % n], capture_output=True, text=True)
    commits += 1
    if r.returncode != 0:
        cfail += 1
        k = "index.lock" if "index.lock" in r.stderr else ("ref" if "lock ref" in r.stderr or "cannot lock" in r.stderr else r.stderr.strip()[:60])
        reasons[k] = reasons.get(k, 0) + 1
    r = subprocess.run(["git", "-C", root, "status", "--porcelain"], capture_output=True, text=True)
    statuses += 1
    if r.returncode != 0 or "warning" in r.stderr or "fatal" in r.stderr:
        sfail += 1
    time.sleep(random.uniform(0.02, 0.08))
stop = True; t.join()
time.sleep(1.5)
st = subprocess.run(["git", "-C", root, "status", "--porcelain"], capture_output=True, text=True).stdout
s.sendall((json.dumps({"jsonrpc": "2.0", "id": 0, "method": "ping"}) + "\n").encode())
ws = json.loads(rf.readline())["result"]["write_stats"]
d.terminate(); d.wait()
print(json.dumps({"seconds": seconds, "rate": rate, "agent_acked": acked, "agent_refused": refused,
                  "git_commit_am": commits, "commit_failed": cfail, "commit_fail_rate": round(cfail / max(1, commits), 4),
                  "fail_reasons": reasons, "git_status": statuses, "status_failed": sfail,
                  "status_after_quiet": st.strip(),
                  "index_held_ms_per_batch": round(ws.get("index_held_ms", 0) / max(1, ws["batches"]), 3),
                  "index_lock_ms_per_batch": round(ws.get("index_lock_ms", 0) / max(1, ws["batches"]), 3),
                  "ref_lock_ms_per_batch": round(ws.get("ref_lock_ms", 0) / max(1, ws["batches"]), 3),
                  "batches": ws["batches"], "ws": {k: round(v / max(1, ws["batches"]), 3) for k, v in ws.items() if k.endswith("_ms")}}))
