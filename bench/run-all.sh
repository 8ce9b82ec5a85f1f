#!/usr/bin/env bash
# Runs every benchmark in one go, so ratios are measured in the same run. Each run starts its own
# daemon (a child JVM) on a fresh root and drives it over the socket. Prints one JSON line per run.
set -euo pipefail
cd "$(dirname "$0")/.."
bin/memoryd --version >/dev/null
run() { echo "## bench $*"; bin/memoryd bench "$@" | tail -n 1; }
run --clients 1 --floor
run --clients 4
run --clients 16 --writes 4000
run --clients 1 --history 1000
run --clients 1 --history 100000 --verify
# a fresh daemon's first seconds, JIT still compiling (the runs above warm up with 6,000 declarations)
run --clients 1 --warmup 300
run --clients 16 --writes 4000 --warmup 300
run --mode slip --clients 4 --writes 4000
run --mode context --turns 100000 --writes 2000
run --mode refs --refs 1000
run --mode scope --chunks 100000 --writes 2000
run --mode human --quiet-ms 2000 --edits 30
run --mode replay --events 100000 --parts 1000
run --mode replay --events 100000 --parts 100
run --mode merge --writes 1000
run --mode sync --writes 1000
