#!/usr/bin/env python3
"""Whether a human's `git add -A && git commit` beside two writing agents takes back an agent's write.

Starts a daemon child on a fresh example root; two agents append items through its socket, RATE
times a second each (inner-critic's Triggers, young-one's Open Questions), while a human loops:
appends to a file of their own, saves the notes as an editor does (temp file and rename), and in
CHECKOUT of the rounds runs `git checkout -b x`, `git checkout main` and `git branch -D x`, in
STASH of them `git stash` and `git stash pop`; then `git add -A` and `git commit` (each run again
while it meets a busy lock). At the end every acknowledged item must be at HEAD. Prints one JSON
line: acknowledged, human commits, the items lost, and the human commits that took them out with
the action of their round; the root is kept for a look.

Usage: python3 bench/add-all-beside.py daemon/target/memoryd.jar [SECONDS [RATE [SEED [CHECKOUT [STASH]]]]]"""
import json, os, random, subprocess, sys, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from beside import Daemon, HUMAN_ENV as env

jar = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 120.0
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
random.seed(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
checkout_share = float(sys.argv[5]) if len(sys.argv) > 5 else 0.5
stash_share = float(sys.argv[6]) if len(sys.argv) > 6 else 0.0
d = Daemon(jar, "add-all-beside-")
tmp, root, connect = d.tmp, d.root, d.connect


stop = False
acked = {}


def agent(a, path, section):
    s = connect()
    rf = s.makefile("rb")
    i = 0
    nxt = time.time()
    while not stop:
        i += 1
        item = "a%d item %d" % (a, i)
        req = {"jsonrpc": "2.0", "id": i, "method": "write", "params": {"rationale": "r", "ops": [
            {"op": "append_item", "path": path, "section": section, "item": item}]}}
        s.sendall((json.dumps(req) + "\n").encode())
        r = json.loads(rf.readline())
        if "result" in r:
            acked[item] = (path, r["result"].get("commit"))
        nxt += 1.0 / rate
        time.sleep(max(0, nxt - time.time()))


def git(*args):
    return subprocess.run(["git", "-C", root] + list(args), env=env, capture_output=True, text=True)


def retrying(*args):
    r = git(*args)
    for k in range(100):
        if r.returncode == 0 or ("index.lock" not in r.stderr and "cannot lock ref" not in r.stderr):
            break
        time.sleep(0.005 + 0.005 * k)
        r = git(*args)
    return r


connect().close()
time.sleep(2)
agents = [threading.Thread(target=agent, args=(0, "users/sam/parts/inner-critic/profile.md", "Triggers")),
          threading.Thread(target=agent, args=(1, "users/sam/parts/young-one/profile.md", "Open Questions"))]
for t in agents:
    t.start()
notes = os.path.join(root, "users/sam/notes.md")
inbox = "<!-- @anchor: inbox v1 -->\n\n"
end = time.time() + seconds
n = commits = 0
actions = {}
while time.time() < end:
    n += 1
    with open(os.path.join(root, "human.txt"), "a") as f:
        f.write("%d\n" % n)
    text = open(notes).read()
    at = text.index(inbox) + len(inbox)
    with open(notes + ".swp", "w") as f:
        f.write(text[:at] + "- human %d\n" % n + text[at:])
    os.rename(notes + ".swp", notes)
    time.sleep(random.random() * 0.03)
    k = random.random()
    if k < stash_share:
        actions[n] = "stash"
        st = retrying("stash")
        time.sleep(random.random() * 0.1)
        if st.returncode == 0 and "No local changes" not in st.stdout and retrying("stash", "pop").returncode != 0:
            retrying("stash", "drop")
    elif k < stash_share + checkout_share:
        actions[n] = "checkout"
        if retrying("checkout", "-q", "-b", "x").returncode == 0:
            time.sleep(random.random() * 0.1)
            retrying("checkout", "-q", "main")
            retrying("branch", "-q", "-D", "x")
    else:
        actions[n] = "none"
    if retrying("add", "-A").returncode == 0 and retrying("commit", "-qm", "human %d" % n).returncode == 0:
        commits += 1
    time.sleep(random.random() * 0.05)
stop = True
for t in agents:
    t.join()
time.sleep(3)
lost, culprits = [], []
for item, (path, commit) in acked.items():
    if ("- " + item + "\n") not in git("show", "HEAD:" + path).stdout:
        lost.append((item, commit))
        for line in git("log", "--format=%s", "-S", "- " + item + "\n", "--", path).stdout.split("\n"):
            if line.startswith("human "):
                culprits.append((item, line, actions.get(int(line.split()[1]))))
print(json.dumps({"acked": len(acked), "human_commits": commits, "lost": len(lost), "lost_items": lost[:20],
                  "taken_out_by": culprits[:20], "root": tmp}))
d.stop()
