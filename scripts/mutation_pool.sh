#!/usr/bin/env bash
# Rebuild the committed mutation pool: for each pinned release, mutate (seed 0) and admit the candidates in
# order until the library's cap is reached. Resumable: candidates already admitted or dropped are skipped.
#
#   scripts/mutation_pool.sh                  every release below
#   scripts/mutation_pool.sh sqlparse==0.5.3  just these
#
# BENCH (default: ./pants run src/python/bench:bench --) is the command that runs the harness CLI.
set -euo pipefail
cd "$(dirname "$0")/.."

RELEASES=(
  cachetools==5.5.0
  more-itertools==10.5.0
  tomlkit==0.13.2
  sqlparse==0.5.3
  marshmallow==3.23.1
  humanize==4.11.0
  boltons==24.1.0
  toolz==1.0.0
  click==8.1.7
  jinja2==3.1.4
  idna==3.10
  semver==3.0.2
  inflection==0.5.1
  parse==1.20.2
  six==1.16.0
  jmespath==1.0.1
  soupsieve==2.6
  tabulate==0.9.0
  isodate==0.7.2
  webcolors==24.8.0
)
# Tried and left out, with what `bench mutate --admit` says:
#   no test files in the sdist: sortedcontainers==2.4.0, bidict==0.23.1, jsonpointer==3.0.0,
#     python-slugify==8.0.4
#   the release's own suite does not run in the harness's environment (Python 3.13), with today's index and
#   with the index as of its upload: packaging==24.2 (tests import undeclared dependencies),
#   attrs==24.2.0 and pyparsing==3.2.0 (modules under tests/ fail at import), python-dateutil==2.9.0.post0
#   and itsdangerous==2.2.0 (a test dependency patches uuid internals Python 3.13 removed),
#   markdown==3.7 (no test of its suite passes there), cssselect==1.2.0 (its editable install fails),
#   wcwidth==0.2.13 (its test dependencies do not resolve)
LIMIT=${LIMIT:-150}   # candidates made per release (one per function, seeded choice)
CAP=${CAP:-30}        # admitted tasks per library
read -r -a BENCH <<< "${BENCH:-./pants run src/python/bench:bench --}"

if [ $# -gt 0 ]; then RELEASES=("$@"); fi
for release in "${RELEASES[@]}"; do
  echo "== $release" >&2
  "${BENCH[@]}" mutate "$release" --seed 0 --limit "$LIMIT" --admit --cap "$CAP" \
    --out "mutation-candidates/${release/==/-}" || echo "!! $release failed (exit $?)" >&2
done
"${BENCH[@]}" pool stats
