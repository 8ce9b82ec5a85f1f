#!/usr/bin/env python3
"""Turns the output of bench/run-all.sh into the figure tables of docs/BENCHMARKS.md.

Usage: bench/run-all.sh | tee results.txt; python3 bench/report.py results.txt
Prints markdown tables; the prose around them in docs/BENCHMARKS.md is written by hand.
"""
import json
import sys


def load(path):
    runs, cur = {}, None
    for line in open(path):
        line = line.strip()
        if line.startswith('## bench'):
            cur = line[len('## bench '):]
        elif line.startswith('{') and cur:
            runs[cur] = json.loads(line)
    return runs


def per(r, k):
    s = r['write_stats']
    return s.get(k, 0) / s['declarations']


def main(path):
    runs = load(path)
    if '--clients 1 --floor' in runs:
        write_tables(runs)
    for k, r in runs.items():
        if r.get('mode') == 'human':
            print(f"Human save -> committed event (quiet {r['quiet_ms']} ms, {r['edits']} saves): p50 {r['p50_ms']:.0f} ms, "
                  f"p99 {r['p99_ms']:.0f} ms, p99 - quiet {r['p99_over_quiet_ms']:.0f} ms")
        elif r.get('mode') == 'replay':
            print(f"Replay ({r['parts']} parts, {r['replayed_events']:,} events, {r['human_edits']} human edits): "
                  f"{r['replay_s']} s, {r['events_per_s']:,.0f} events/s, clean={r['replay_ok']}")


def write_tables(runs):
    rows = [('--clients 1 --floor', '1 client, fresh root', 'p50 ≤ 3, p99 ≤ 10'),
            ('--clients 4', '4 clients', ''),
            ('--clients 16 --writes 4000', '16 clients (4,000 writes)', '≥ 1,000/s'),
            ('--clients 1 --history 1000', '1 client, 1,000 events of history', ''),
            ('--clients 1 --history 100000 --verify', '1 client, 100,000 events of history',
             'p50 ≤ 1.2 × the 1 k run'),
            ('--clients 1 --warmup 300', '1 client, fresh daemon (300 warm-up writes)', ''),
            ('--clients 16 --writes 4000 --warmup 300', '16 clients, fresh daemon (300 warm-up writes)', '')]
    print('| run | warm-up | JIT ms while measuring | p50 ms | p99 ms | declarations/s | target |\n'
          '| --- | --- | --- | --- | --- | --- | --- |')
    for k, name, tgt in rows:
        r = runs.get(k)
        if r is None:
            continue
        print(f"| {name} | {r.get('warmup', 300)} | {r.get('jit_ms_measured', '')} | {r['p50_ms']:.2f} | "
              f"{r['p99_ms']:.2f} | {r['writes_per_s']:.0f} | {tgt} |")
    h1, h100 = runs['--clients 1 --history 1000'], runs['--clients 1 --history 100000 --verify']
    print(f"\nHistory ratio (p50 100 k ÷ p50 1 k): {h100['p50_ms'] / h1['p50_ms']:.2f}")
    f = runs['--clients 1 --floor']['floor']
    print(f"Floor: append + fsync p50 {f['append_fsync_p50_ms']} ms (p99 {f['append_fsync_p99_ms']}); "
          f"bare JGit commit p50 {f['jgit_commit_p50_ms']} ms (p99 {f['jgit_commit_p99_ms']})\n")
    r1, r16 = runs['--clients 1 --floor'], runs['--clients 16 --writes 4000']
    b16 = r16['write_stats']['declarations'] / r16['write_stats']['batches']
    steps = [('ref_lock_ms', "take the branch's ref lock", 'writer'),
             ('apply_ms', 'apply: parse, op, Change Log, lint', 'writer'),
             ('ledger_append_ms', 'ledger append (JCS + HMAC + write)', 'writer'),
             ('git_commit_ms', 'build commits (blobs, trees, commit)', 'writer'),
             ('git_flush_ms', "write the batch's pack and index", 'writer'),
             ('ledger_fsync_ms', 'ledger journal fsync, and the segment fsync after the index lock', 'writer'),
             ('index_check_ms', 'under the index lock: read it, check git rewrote nothing', 'writer'),
             ('segment_write_ms', 'under the index lock: ledger lines written to the segment', 'writer'),
             ('wait_durable_ms', 'wait for the staged temp files to be forced', 'writer'),
             ('files_place_ms', 'under the index lock: rename files into place', 'writer'),
             ('git_ref_ms', 'under the index lock: move the branch ref (compare-and-swap)', 'writer'),
             ('index_ms', 'write the index, release its lock', 'writer'),
             ('files_rename_ms', 'directory fsyncs after the index lock', 'writer'),
             ('files_ms', 'temp files written and fsynced', 'stage'),
             ('compact_ms', 'pack roll-up', 'compact')]
    print(f'| step | thread | 1 client | 16 clients ({b16:.1f} per batch) |\n| --- | --- | --- | --- |')
    for k, name, th in steps:
        print(f'| {name} | {th} | {per(r1, k):.3f} | {per(r16, k):.3f} |')
    v = h100
    print(f"\nVerify: {v['verify_lines']:,} lines, {v['verify_bytes'] / 1e6:.0f} MB: "
          f"{v['verify_lines_per_s']:,.0f} lines/s, {v['verify_mb_per_s']:.0f} MB/s warm; "
          f"first pass {v['verify_first_pass_lines_per_s']:,.0f} lines/s")
    sl = runs.get('--mode slip --clients 4 --writes 4000')
    if sl is None:
        return
    print(f"SLIP: {sl['messages_per_s']:.0f} messages/s, send p50 {sl['send_p50_ms']} ms, "
          f"p99 {sl['send_p99_ms']} ms, delivered {sl['delivered']}")
    cx = runs.get('--mode context --turns 100000 --writes 2000')
    if cx is None:
        return
    print(f"Context: p50 {cx['p50_ms']} ms, p99 {cx['p99_ms']} ms, {cx['mean_selected_turns']:.0f} turns "
          f"selected, load {cx['load_s']} s, first query {cx['first_query_ms']:.0f} ms")


if __name__ == '__main__':
    main(sys.argv[1])
