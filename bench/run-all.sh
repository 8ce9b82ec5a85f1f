#!/usr/bin/env bash
# Runs every write-path benchmark in one go, so ratios are measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
bin/memoryd --version >/dev/null
for args in "--clients 1 --floor" "--clients 4" "--clients 16 --writes 4000" \
            "--clients 1 --history 1000" "--clients 1 --history 100000 --verify"; do
  echo "## bench $args"
  bin/memoryd bench $args | tail -n 1
done
