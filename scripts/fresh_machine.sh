#!/usr/bin/env bash
# A fresh machine, as far as one can be had on this one: clone the repository into an empty temp folder, give
# it an empty HOME (so Pants, pex and the harness start with empty caches), and run exactly the README's two
# commands there. Prints each command's wall time, result and the load average around it; exits non-zero if
# either command fails. Nothing installed by hand is used: ./pants bootstraps itself into the empty HOME and the
# harness installs what it needs. Ends with where the time went (scripts/fresh_profile.py): Pants' start, each pex
# build, the harness's phases and the sandboxed runs' own time, the test targets' own time.
#
# Usage: scripts/fresh_machine.sh [REPO]
#   REPO  a path or URL git can clone (default: this checkout; a clone takes its committed HEAD, never
#         uncommitted changes).
# KEEP=1 keeps the temp folder (clone, HOME, logs) after a success; after a failure it is always kept.
# Expect about 17 minutes on two cores (measured: the main job 2.3, the tests 14.8): llama.cpp is compiled from its
# sdist once, for the model tests, beside the other tests.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="${1:-$here}"
work="$(mktemp -d "${TMPDIR:-/tmp}/fresh-machine.XXXXXX")"
mkdir -p "$work/home" "$work/logs"

# Only the HOME changes (and what would point into the old one): PATH keeps the machine's own tools.
env_fresh=(env -u XDG_CACHE_HOME -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u BENCH_CACHE_DIR -u PANTS_BOOTSTRAP_DIR
           -u PEX_ROOT -u PIP_CACHE_DIR -u PYTHONPATH -u VIRTUAL_ENV HOME="$work/home")

if ! "${env_fresh[@]}" git clone --quiet --no-hardlinks "$repo" "$work/repo"; then
  echo "fresh_machine: cannot clone $repo" >&2
  exit 2
fi
cd "$work/repo" || exit 2
echo "fresh machine: $work (commit $(git rev-parse --short HEAD) of $repo), $(nproc) cores"

load() { cut -d' ' -f1-3 /proc/loadavg; }

stop_pantsd() {  # the clone's pantsd, started by the commands above; nothing else
  local pidfile pid
  for pidfile in "$work"/repo/.pids/*/pantsd/pid; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
  done
}
trap stop_pantsd EXIT

summary=()
failed=0
run() {  # run NAME COMMAND...: time one command, log its output
  local name="$1" start end rc load_before
  shift
  load_before="$(load)"
  echo "--- $* (log: $work/logs/$name.log)"
  start=$(date +%s%N)
  # Every line stamped with the Unix time it was printed: scripts/fresh_profile.py reads where the time went.
  "${env_fresh[@]}" BENCH_PROFILE="$work/logs/profile-$name.json" "$@" 2>&1 \
    | python3 -u -c 'import sys, time
for line in sys.stdin: sys.stdout.write(f"{time.time():.3f} {line}")' > "$work/logs/$name.log"
  rc=${PIPESTATUS[0]}
  end=$(date +%s%N)
  tail -n 3 "$work/logs/$name.log"
  local line
  local tenths=$(( (end - start) / 100000000 ))
  line="$(printf '%-56s %5d.%d s  exit %d  load %s -> %s' "$*" $((tenths / 10)) $((tenths % 10)) "$rc" \
    "$load_before" "$(load)")"
  echo "$line"
  summary+=("$line")
  [ "$rc" -eq 0 ] || failed=1
}

run score ./pants run src/python/bench:score -- --model scripted
run test ./pants test ::

echo "=== summary ($(nproc) cores; load = 1/5/15-minute load average before -> after)"
printf '%s\n' "${summary[@]}"
echo "=== where the time went (scripts/fresh_profile.py)"
python3 "$here/scripts/fresh_profile.py" "$work"
stop_pantsd
if [ "$failed" -ne 0 ]; then
  echo "FAILED; everything is kept in $work" >&2
  exit 1
fi
if [ "${KEEP:-0}" = 1 ]; then
  echo "kept: $work"
else
  chmod -R u+w "$work" 2>/dev/null
  rm -rf "$work"
fi
