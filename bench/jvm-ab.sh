#!/usr/bin/env bash
# A/B of daemon JVM settings: alternates configurations round by round on the same build, so
# machine noise hits each alike. Prints one JSON line per run, prefixed by its configuration.
#   bench/jvm-ab.sh ROUNDS "BENCH ARGS" NAME=OPTS...
# OPTS "bare" is the JVM's defaults (--bare-jvm); "serve" is bin/serve-jvm.options; anything
# else is passed as MEMORYD_DAEMON_JAVA_OPTS on top of the JVM's defaults.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="$1"; args="$2"; shift 2
for r in $(seq 1 "$rounds"); do
  for cfg in "$@"; do
    name="${cfg%%=*}"; opts="${cfg#*=}"
    if [ "$opts" = serve ]; then
      line="$("$here/bin/memoryd" bench $args)"
    elif [ "$opts" = bare ]; then
      line="$("$here/bin/memoryd" bench --bare-jvm $args)"
    else
      line="$(MEMORYD_DAEMON_JAVA_OPTS="$opts" "$here/bin/memoryd" bench --bare-jvm $args)"
    fi
    echo "$name round=$r load=$(cut -d' ' -f1 /proc/loadavg) $line"
  done
done
