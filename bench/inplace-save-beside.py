#!/usr/bin/env python3
"""An editor saving in place beside an agent that appends to the same file.

Starts a daemon child on a fresh example root; one agent appends items to young-one's Open
Questions RATE times a second, while a human adds a word to the same section every 0.3-0.8 s and
saves in place, as some editors do: truncate, write part of the text, up to 50 ms later the rest.
Afterwards: acknowledged items and saved words missing at HEAD or in the file (an item the
human's save wrote over is their edit, and recorded as such), refusals, `ledger verify`,
`git status` and the drift queue. Prints one JSON object; the root is kept for a look.

Usage: python3 bench/inplace-save-beside.py daemon/target/memoryd.jar SECONDS RATE SEED"""
import json, os, random, subprocess, sys, threading, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from beside import Daemon
jar = sys.argv[1]; seconds = float(sys.argv[2]); rate = float(sys.argv[3]); random.seed(int(sys.argv[4]))
d = Daemon(jar, "inplace-save-beside-")
tmp, root, key, connect = d.tmp, d.root, d.key, d.connect
path = "users/sam/parts/young-one/profile.md"
stop = False; acked = {}; refused = {}
def agent():
    s = connect(); rf = s.makefile("rb"); i = 0; nxt = time.time()
    while not stop:
        i += 1; item = "agent item %d" % i
        req = {"jsonrpc": "2.0", "id": i, "method": "write", "params": {"rationale": "r", "ops": [
            {"op": "append_item", "path": path, "section": "Open Questions", "item": item}]}}
        s.sendall((json.dumps(req) + "\n").encode()); r = json.loads(rf.readline())
        if "result" in r: acked[item] = r["result"].get("commit")
        else: refused[item] = r["error"]["message"][:200]
        nxt += 1.0 / rate; time.sleep(max(0, nxt - time.time()))
connect().close(); time.sleep(2)
t = threading.Thread(target=agent); t.start()
f = os.path.join(root, path); words = []
end = time.time() + seconds; n = 0
while time.time() < end:
    n += 1
    text = open(f, encoding="utf-8").read()
    anchor = "<!-- @anchor: open-questions v1 -->\n\n"
    at = text.index(anchor) + len(anchor)
    w = "human word %d" % n
    new = text[:at] + "- " + w + "\n" + text[at:]
    data = new.encode()
    half = random.randint(1, len(data) - 1)
    with open(f, "r+b") as fh:
        fh.truncate(0); fh.write(data[:half]); fh.flush(); os.fsync(fh.fileno())
        time.sleep(random.random() * 0.05)
        fh.write(data[half:]); fh.flush()
    words.append(w)
    time.sleep(0.3 + random.random() * 0.5)
stop = True; t.join(); time.sleep(5)
head = subprocess.run(["git", "-C", root, "show", "HEAD:" + path], capture_output=True, text=True).stdout
disk = open(f, encoding="utf-8").read()
lost_items = [i for i in acked if ("- " + i + "\n") not in head or ("- " + i + "\n") not in disk]
lost_words = [w for w in words if ("- " + w + "\n") not in head or ("- " + w + "\n") not in disk]
v = d.cli("ledger", "verify")
st = subprocess.run(["git", "-C", root, "status", "--porcelain"], capture_output=True, text=True).stdout
drift = d.cli("drift", "list").stdout
print(json.dumps({"acked": len(acked), "refused": len(refused), "refused_sample": list(refused.values())[:3],
  "saves": len(words), "lost_items": lost_items[:10], "lost_words": lost_words[:10], "verify": v.stdout.strip()[-200:],
  "status": st, "drift": drift[:500], "root": tmp}, indent=1))
d.stop()
