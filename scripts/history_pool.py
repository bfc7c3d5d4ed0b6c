"""Build the reverted-fix mutation pool: for each library, its releases newest first, each release's own past
fixes undone (``bench mutate LIB==VER --history OWNER/NAME --admit``) until the library holds its cap of them (other mutation tasks of the library do not count against it).

    python scripts/history_pool.py [--plan] [--releases N] [--cap 30] [LIB ...]
    python scripts/history_pool.py --make-room [--cap 30]     then: the cap again, reverted fixes first

Mirrors come from ``$BENCH_MIRROR_DIR`` (``owner+name``), the tool from ``$BENCH`` (default ``./pants run
src/python/bench:bench --``). A release is tried only when its tag's tree, read from the mirror, holds at least
one fix not yet undone in the pool, so a library costs one environment per release that can add something.
``--plan`` prints those counts and runs nothing. Resumable: what the gate decided is skipped on a rerun.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src" / "python"))

from bench.mutate.history import reverted_fixes  # noqa: E402
from bench.mutate.operators import OMISSIONS  # noqa: E402
from bench.source.git import mirror_for  # noqa: E402

# PyPI name -> GitHub repository. Left out, with what `bench mutate --admit` says of their releases: packaging,
# attrs, pyparsing, python-dateutil, itsdangerous and markdown (the release's own suite does not run in the
# harness's environment, Python 3.13; see scripts/mutation_pool.sh).
LIBRARIES = {
    "sqlparse": "andialbrecht/sqlparse",
    "boltons": "mahmoud/boltons",
    "tomlkit": "python-poetry/tomlkit",
    "more-itertools": "more-itertools/more-itertools",
    "click": "pallets/click",
    "humanize": "python-humanize/humanize",
    "toolz": "pytoolz/toolz",
    "parse": "r1chardj0n3s/parse",
    "semver": "python-semver/python-semver",
    "cachetools": "tkem/cachetools",
    "jinja2": "pallets/jinja",
    "tabulate": "astanin/python-tabulate",
    "marshmallow": "marshmallow-code/marshmallow",
    "arrow": "arrow-py/arrow",
    "tenacity": "jd/tenacity",
    "pyjwt": "jpadilla/pyjwt",
    "prettytable": "prettytable/prettytable",
    "h11": "python-hyper/h11",
    "h2": "python-hyper/h2",
    "wsproto": "python-hyper/wsproto",
    "pluggy": "pytest-dev/pluggy",
    "jsonschema": "python-jsonschema/jsonschema",
    "python-dotenv": "theskumar/python-dotenv",
    "filelock": "tox-dev/filelock",
    "platformdirs": "tox-dev/platformdirs",
    "requests": "psf/requests",
    "soupsieve": "facelessuser/soupsieve",
    "idna": "kjd/idna",
    "pyflakes": "PyCQA/pyflakes",
    "pathspec": "cpburnz/python-pathspec",
    "jmespath": "jmespath/jmespath.py",
    "six": "benjaminp/six",
    "isodate": "gweis/isodate",
    "inflection": "jpvanhal/inflection",
    "xmltodict": "martinblech/xmltodict",
    "funcy": "Suor/funcy",
    "pyasn1": "pyasn1/pyasn1",
    "colorama": "tartley/colorama",
}
_FINAL = re.compile(r"^v?(\d+(?:\.\d+)+)$")


def releases(git_dir: Path, newest: int) -> list[tuple[str, str]]:
    """(tag, version) of the newest final releases, newest first."""
    tags = subprocess.run(["git", "--git-dir", str(git_dir), "tag"], capture_output=True, text=True, check=True)
    found = [(tag, m.group(1)) for tag in tags.stdout.split() if (m := _FINAL.match(tag))]
    found.sort(key=lambda pair: tuple(int(part) for part in pair[1].split(".")), reverse=True)
    return found[:newest]


def planned(git_dir: Path, tag: str, taken: set[str]) -> list[str]:
    """The commits whose fixes the tag's tree still holds and the pool does not undo yet."""
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "--format=tar", tag],
                             capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory(prefix="history-plan-") as scratch:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(scratch, filter="data")
        return [fix.commit for fix in reverted_fixes(Path(scratch), git_dir, tag) if fix.commit not in taken]


def pool_state(library: str) -> tuple[int, set[str]]:
    """How many of the library's mutation tasks in the pool are not reverted fixes, and the commits the others
    undo."""
    import json

    folder = ROOT / "tasks" / f"mutation-{library}"
    others, taken = 0, set()
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        commit = json.loads(path.read_text(encoding="utf-8")).get("provenance", {}).get("reverted_commit")
        if commit:
            taken.add(commit)
        else:
            others += 1
    return others, taken


def decided(library: str) -> set[str]:
    """The commits whose undoing the gate dropped for the library, in any release (not worth another one)."""
    import json

    commits = set()
    for path in (ROOT / "tasks" / "_dropped").glob(f"mutation.{library}.*.json"):
        candidate = json.loads(path.read_text(encoding="utf-8")).get("candidate", {})
        commits.add(candidate.get("provenance", {}).get("reverted_commit", ""))
    return commits - {""}


def make_room(library: str, cap: int) -> list[str]:
    """Retire the library's single-site engine mutants beyond what its reverted fixes and omissions leave of the
    cap, last choices first (highest seed, then highest index): those two read as shipped bugs far more often
    (docs/measurements/mutation-audit.md), and the cap stays the cap."""
    import json

    folder = ROOT / "tasks" / f"mutation-{library}"
    specs = [(path, json.loads(path.read_text(encoding="utf-8"))) for path in sorted(folder.glob("*.json"))]
    made = [(path, doc) for path, doc in specs if not doc.get("provenance", {}).get("reverted_commit")
            and doc["mutation"]["operator"] not in OMISSIONS]
    surplus = len(specs) - cap
    if surplus <= 0 or not made:
        return []
    made.sort(key=lambda item: (item[1]["mutation"]["seed"], item[1]["mutation"]["index"], item[0].name))
    retired = []
    for path, _ in made[-surplus:]:
        target = ROOT / "tasks" / "_retired" / f"mutation-{library}" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", str(path), str(target)], cwd=ROOT, check=True)
        retired.append(path.stem)
    return retired


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("libraries", nargs="*", help="PyPI names (default: every library listed here)")
    parser.add_argument("--plan", action="store_true", help="print what each release could add; run nothing")
    parser.add_argument("--releases", type=int, default=6, help="newest final releases per library (default 6)")
    parser.add_argument("--cap", type=int, default=30, help="mutation tasks per library (default 30)")
    parser.add_argument("--make-room", action="store_true",
                        help="only retire single-site engine mutants of libraries over the cap, so reverted fixes "
                             "and omissions keep their places (run after admitting)")
    args = parser.parse_args()
    bench = shlex.split(os.environ.get("BENCH", "./pants run src/python/bench:bench --"))
    unknown = sorted(set(args.libraries) - set(LIBRARIES))
    if unknown and not args.make_room:
        print(f"unknown libraries: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.make_room:
        folders = sorted(path.name.removeprefix("mutation-") for path in (ROOT / "tasks").glob("mutation-*"))
        for library in args.libraries or folders:
            retired = make_room(library, args.cap)
            print(f"== {library}: retired {len(retired)} single-site engine mutants over the cap", flush=True)
        return 0
    for library in args.libraries or sorted(LIBRARIES):
        git_dir = mirror_for(LIBRARIES[library])
        if git_dir is None:
            print(f"== {library}: no mirror of {LIBRARIES[library]} under $BENCH_MIRROR_DIR; skipped", file=sys.stderr)
            continue
        for tag, version in releases(git_dir, args.releases):
            others, taken = pool_state(library)
            if len(taken) >= args.cap:
                break
            commits = planned(git_dir, tag, taken | decided(library))
            print(f"== {library}=={version} ({tag}): {len(commits)} fixes to undo; pool has {len(taken)}",
                  flush=True)
            if args.plan or not commits:
                continue
            # the gate's cap counts every mutation task of the library: reverted fixes get the whole cap
            command = [*bench, "mutate", f"{library}=={version}", "--history", LIBRARIES[library], "--tag", tag,
                       "--admit", "--cap", str(others + args.cap),
                       "--out", f".bench/candidates/mutation-history-{library}-{version}"]
            done = subprocess.run(command, cwd=ROOT)
            if done.returncode != 0:
                print(f"!! {library}=={version} failed (exit {done.returncode})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
