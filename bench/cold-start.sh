#!/usr/bin/env bash
# Cold start of the everyday commands: one hyperfine run per command, the build before (a
# checkout OLD of it, its launcher and jar built there) against this checkout's, on the default
# `java` and, when JAVA25 names a JDK's bin directory, on that JDK too (a second copy OLD25 of the
# old checkout keeps its own archive). Needs hyperfine (Debian package) and a served root:
#   bin/memoryd init --root R --example ./users && bin/memoryd serve --root R &
#   echo '{"rationale":"bench","chunks":[{"name":"topic","body":{"text":"a topic"}}]}' \
#     | bin/memoryd declare --root R
# Usage: OLD=/tmp/old OLD25=/tmp/old25 JAVA25=/usr/lib/jvm/temurin-25-jdk-amd64/bin \
#   bench/cold-start.sh R OUTDIR
set -euo pipefail
root=$1
out=$2
new="$(cd "$(dirname "$0")/.." && pwd)/bin/memoryd"
mkdir -p "$out"
decl="$out/w.json"
echo '{"rationale":"cold-start benchmark","ops":[{"op":"append_item","path":"users/sam/overview.md","section":"Open Questions","item":"Does a cold command answer in time?"}]}' >"$decl"
yard=(-n "java -version" "java -version")
[ -n "${JAVA25:-}" ] && yard+=(-n "java25 -version" "$JAVA25/java -version")
echo "load before: $(cat /proc/loadavg)"
hyperfine -N --warmup 3 --runs 20 --export-json "$out/java.json" "${yard[@]}"
run() {
  local name=$1
  shift
  local args="$* --root $root"
  local cmds=(-n "old jdk-default" "$OLD/bin/memoryd $args" -n "new jdk-default" "$new $args")
  if [ -n "${JAVA25:-}" ]; then
    cmds+=(-n "old jdk25" "env PATH=$JAVA25:$PATH $OLD25/bin/memoryd $args")
    cmds+=(-n "new jdk25" "env PATH=$JAVA25:$PATH $new $args")
  fi
  echo "load before $name: $(cat /proc/loadavg)"
  hyperfine -N --warmup 3 --runs 20 --export-json "$out/$name.json" "${cmds[@]}"
}
run ping ping
run read read users/sam/overview.md --section Identity
run write write --file "$decl"
run search search teacher
run scope scope topic
run history history users/sam/overview.md --limit 5
echo "load after: $(cat /proc/loadavg)"
