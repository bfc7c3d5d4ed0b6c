#!/usr/bin/env bash
# Rebuild the committed mutation pool: for each pinned release, mutate (seed 0) and admit the candidates in
# order until the library's cap is reached. Resumable: candidates already admitted or dropped are skipped.
#
#   scripts/mutation_pool.sh                  every release below
#   scripts/mutation_pool.sh sqlparse==0.5.3  just these
#   SEED=1 scripts/mutation_pool.sh idna==3.10   a second choice per function, for a release whose first
#                                               choices ran out below the cap
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
  pathspec==0.12.1
  xmltodict==0.14.2
  funcy==2.0
  pyasn1==0.6.1
  colorama==0.4.6
  pyflakes==3.2.0
)
# Tried and left out, with what `bench mutate --admit` says:
#   no test files in the sdist: sortedcontainers==2.4.0, bidict==0.23.1, jsonpointer==3.0.0,
#     python-slugify==8.0.4
#   the release's own suite does not run in the harness's environment (Python 3.13), with today's index and
#   with the index as of its upload: packaging==24.2 (tests import undeclared dependencies),
#   attrs==24.2.0 and pyparsing==3.2.0 (modules under tests/ fail at import), python-dateutil==2.9.0.post0
#   and itsdangerous==2.2.0 (a test dependency patches uuid internals Python 3.13 removed),
#   markdown==3.7 (no test of its suite passes there), cssselect==1.2.0 (its editable install fails),
#   wcwidth==0.2.13 (its test dependencies do not resolve), natsort==8.4.0 (its conftest imports hypothesis,
#   which it does not declare), pycodestyle==2.12.1 (its tests import a helper package the sdist lacks);
#   decorator==5.1.1 and tomli==2.2.1 ship no tests; typing-extensions==4.12.2 backports the standard library's
#   typing, whose copy of a mutated function would sit in the sandbox beside it
LIMIT=${LIMIT:-150}   # candidates made per release (one per function, seeded choice)
CAP=${CAP:-30}        # admitted tasks per library
SEED=${SEED:-0}       # the per-function choice; candidates of every seed share one decided set
read -r -a BENCH <<< "${BENCH:-./pants run src/python/bench:bench --}"

if [ $# -gt 0 ]; then RELEASES=("$@"); fi
for release in "${RELEASES[@]}"; do
  echo "== $release" >&2
  out=".bench/candidates/mutation-${release/==/-}"
  if [ "$SEED" != 0 ]; then out="$out-seed$SEED"; fi
  "${BENCH[@]}" mutate "$release" --seed "$SEED" --limit "$LIMIT" --admit --cap "$CAP" \
    --out "$out" || echo "!! $release failed (exit $?)" >&2
done
"${BENCH[@]}" pool stats
