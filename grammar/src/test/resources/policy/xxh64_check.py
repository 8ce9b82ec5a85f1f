#!/usr/bin/env python3
"""Independent cross-check of memoryd's SlicePolicy v1 hashes (no third-party modules).

A small pure-Python xxHash64, written from the xxHash specification (doc/xxhash_spec.md of
github.com/Cyan4973/xxHash), used to check, outside Java:

  1. the official XXH64 sanity vectors of xxHash's cli/xsum_sanity_check.c (a buffer filled
     from PRIME32/PRIME64, lengths 0..222, seeds 0 and PRIME32), plus "a" and "abc";
  2. policy_params_hash of the default configuration: xxh64 (seed 0) of the RFC 8785 (JCS)
     form of the spec's appendix object, written out literally below (JCS sorts members by
     name and prints the double 1.0 as 1);
  3. the slice_id of every golden expected.json under golden/: xxh64 of the JCS form of
     [anchor, [sorted turn ids], [sorted edges {parent, child, edge_type}], policy_id,
     policy_params_hash, schema_version]. Those values are strings only, so Python's
     json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False) is their JCS form;
  4. the policy_params_hash of every golden case: its input.json "config" over the appendix
     defaults, in JCS form by jcs() below (enough for these values: Python's repr of a double
     in [1e-6, 1e21) is the ECMAScript shortest form, and integral doubles print as integers).

Run: python3 grammar/src/test/resources/policy/xxh64_check.py   (exit 0 = all checks pass)
PolicyHashTest hard-codes the default hash this script prints.
"""
import json
import os
import sys

M = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def rnd(acc, lane):
    return (rotl((acc + lane * P2) & M, 31) * P1) & M


def merge(acc, v):
    return (((acc ^ rnd(0, v)) * P1) + P4) & M


def xxh64(data: bytes, seed: int = 0) -> int:
    n, p = len(data), 0
    if n >= 32:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed & M, (seed - P1) & M]
        while p + 32 <= n:
            for i in range(4):
                v[i] = rnd(v[i], int.from_bytes(data[p + 8 * i:p + 8 * i + 8], "little"))
            p += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for x in v:
            h = merge(h, x)
    else:
        h = (seed + P5) & M
    h = (h + n) & M
    while p + 8 <= n:
        h ^= rnd(0, int.from_bytes(data[p:p + 8], "little"))
        h = (rotl(h, 27) * P1 + P4) & M
        p += 8
    if p + 4 <= n:
        h ^= (int.from_bytes(data[p:p + 4], "little") * P1) & M
        h = (rotl(h, 23) * P2 + P3) & M
        p += 4
    while p < n:
        h ^= (data[p] * P5) & M
        h = (rotl(h, 11) * P1) & M
        p += 1
    h ^= h >> 33
    h = (h * P2) & M
    h ^= h >> 29
    h = (h * P3) & M
    h ^= h >> 32
    return h


def sanity_buffer(n):
    gen, out = 2654435761, bytearray()
    for _ in range(n):
        out.append(gen >> 56)
        gen = (gen * 11400714785074694797) & M
    return bytes(out)


PRIME32 = 2654435761
SANITY = [(0, 0, 0xEF46DB3751D8E999), (0, PRIME32, 0xAC75FDA2929B17EF), (1, 0, 0xE934A84ADB052768),
          (1, PRIME32, 0x5014607643A9B4C3), (4, 0, 0x9136A0DCA57457EE), (14, 0, 0x8282DCC4994E35C8),
          (14, PRIME32, 0xC3BD6BF63DEB6DF0), (222, 0, 0xB641AE8CB691C174), (222, PRIME32, 0x20CB8AB7AE10C14A)]

DEFAULT_CONFIG_JCS = ('{"distance_decay":0.9,"include_siblings":true,"max_nodes":256,"max_radius":10,'
                      '"max_siblings_per_node":5,"phase_weights":{"consolidation":0.6,"debugging":0.5,'
                      '"exploration":0.3,"planning":0.9,"synthesis":1},"salience_weight":0.3,'
                      '"version":"slice_policy_v1"}')


APPENDIX = {"version": "slice_policy_v1", "max_nodes": 256, "max_radius": 10,
            "phase_weights": {"synthesis": 1.0, "planning": 0.9, "consolidation": 0.6, "debugging": 0.5,
                              "exploration": 0.3},
            "salience_weight": 0.3, "distance_decay": 0.9, "include_siblings": True, "max_siblings_per_node": 5}


def jcs(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        assert v == 0 or 1e-6 <= abs(v) < 1e21, v
        return str(int(v)) if v.is_integer() else repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + jcs(v[k]) for k in sorted(v)) + "}"
    return "[" + ",".join(jcs(x) for x in v) + "]"


def main():
    buf = sanity_buffer(222)
    for n, seed, want in SANITY:
        got = xxh64(buf[:n], seed)
        assert got == want, f"sanity len={n} seed={seed}: {got:016x} != {want:016x}"
    assert xxh64(b"a") == 0xD24EC4F1A98C6E5B
    assert xxh64(b"abc") == 0x44BC2CF5AD770999
    print("sanity vectors ok")
    assert jcs(APPENDIX) == DEFAULT_CONFIG_JCS
    print("default policy_params_hash", f"{xxh64(DEFAULT_CONFIG_JCS.encode()):016x}")
    golden = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
    for case in sorted(os.listdir(golden)) if os.path.isdir(golden) else []:
        path = os.path.join(golden, case, "expected.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
        ids = sorted(t["id"] for t in s["turns"])
        edges = sorted(s["edges"], key=lambda e: (e["parent"], e["child"], e["edge_type"]))
        canon = [s["anchor_turn_id"], ids, edges, s["policy_id"], s["policy_params_hash"], s["schema_version"]]
        text = json.dumps(canon, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        sid = f"{xxh64(text.encode('utf-8')):016x}"
        assert sid == s["slice_id"], f"{case}: slice_id {s['slice_id']} != independent {sid}"
        with open(os.path.join(golden, case, "input.json"), encoding="utf-8") as f:
            inp = json.load(f)
        cfg = dict(APPENDIX)
        for k, v in inp["config"].items():
            cfg[k] = dict(APPENDIX["phase_weights"], **v) if k == "phase_weights" else v
        ph = f"{xxh64(jcs(cfg).encode('utf-8')):016x}"
        assert ph == s["policy_params_hash"], f"{case}: policy_params_hash {s['policy_params_hash']} != {ph}"
        print(f"{case}: policy_params_hash {ph} ok, slice_id {sid} ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
