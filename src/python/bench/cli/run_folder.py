"""Where a scoring run writes: never into a committed reference, nor over another run's results, unless asked.

- ``--out DIR``: exactly there (resumes what DIR holds, if DIR holds this same run);
- ``--name NAME``: ``results/runs/<model>/<NAME>/`` (run it again with the same name to resume);
- ``--update-reference``: ``results/study/<model>/``, the committed reference folder of that model (with
  ``--out``: that folder, which may then be a committed one);
- otherwise: ``results/runs/<model>/<UTC timestamp>/``, a new folder each time.

``<model>`` is the model's id made safe as a folder name (:func:`folder_slug`). ``results/runs/`` is ignored by
git, so an ordinary run leaves ``git status`` clean. Before anything is written, :func:`check_destination`
refuses a folder under a committed reference (``results/study/``, ``results/recorded/``, or anything git tracks)
and a folder holding results of another run (other settings, other tasks, no ``run.json``).
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from bench.errors import UsageError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
SLUG_RULE = ("the model's id with every run of characters other than letters, digits, '.', '_' and '-' "
             "replaced by one '-' (ollama/llama3:8b → ollama-llama3-8b)")
COMMITTED = ("results/study", "results/recorded")


def folder_slug(text: str) -> str:
    """A folder name for ``text`` (a model id, a file's stem): see :data:`SLUG_RULE`; never empty, never
    starting with '.' or '-', at most 100 characters."""
    return _UNSAFE.sub("-", text).strip(".-")[:100].rstrip(".-") or "run"


def run_folder(root: Path, slug: str, *, out: Path | None, name: str | None, reference: bool) -> Path:
    if out is not None and name:
        raise UsageError("--out names the folder itself; it cannot be combined with --name")
    if name and reference:
        raise UsageError("--name and --update-reference choose different folders; give one of them")
    if out is not None:
        return out
    if reference:
        return root / "results" / "study" / slug
    if name is not None and not _NAME.match(name):
        raise UsageError(f"--name {name!r}: use letters, digits, '.', '_' and '-' (a folder name, no '/')")
    return root / "results" / "runs" / slug / (name or time.strftime("%Y%m%d-%H%M%S", time.gmtime()))


def add_arguments(parser) -> None:
    parser.add_argument("--out", type=Path, default=None,
                        help="results folder (default: a new results/runs/<model>/<UTC time>/, where <model> is "
                             f"{SLUG_RULE}); refused when it holds another run's results or a committed reference")
    parser.add_argument("--name", default=None,
                        help="results/runs/<model>/<NAME>/ instead of a timestamp: run again with it to resume")
    parser.add_argument("--update-reference", action="store_true",
                        help="write the committed reference folder results/study/<model>/ (regenerating it), "
                             "or the committed folder --out names")


def is_committed(root: Path, path: Path) -> bool:
    """Whether ``path`` is (or is inside) a committed reference: under results/study/ or results/recorded/ of the
    checkout, or holding files git tracks."""
    where = path.resolve()
    for folder in COMMITTED:
        reference = (root / folder).resolve()
        if where == reference or reference in where.parents:
            return True
    if not where.exists():
        return False
    tracked = subprocess.run(["git", "ls-files", "-z", "--", str(where)], cwd=root, capture_output=True)
    return tracked.returncode == 0 and bool(tracked.stdout)


def check_destination(root: Path, out: Path, settings: dict, tasks: set[str] | None, *, reference: bool,
                      discard: bool, ignored: tuple[str, ...] = ()) -> None:
    """Refuse to write ``out`` when it is a committed reference (unless ``reference``: --update-reference) or
    holds results this run did not make: no ``run.json``, other ``settings`` (keys in ``ignored`` aside), or
    tasks outside ``tasks`` (None: any). ``discard`` (--no-resume) lets a run start over in an uncommitted
    folder of another run; a resumed folder of the same run passes."""
    if reference:
        return
    if is_committed(root, out):
        raise UsageError(f"{out} is a committed reference (results/study/, results/recorded/ or files git tracks): "
                         "this run would replace its results; write elsewhere (--name, another --out) or "
                         "regenerate it on purpose with --update-reference")
    held = [out / name for name in ("results.jsonl", "records.jsonl") if (out / name).is_file()]
    if not held or discard:
        return
    advice = "use another --out (or --name), or --no-resume to discard them"
    settings_file = out / "run.json"
    if not settings_file.is_file():
        raise UsageError(f"{out} holds results without a run.json, not made by this run: {advice}")
    earlier = json.loads(settings_file.read_text(encoding="utf-8"))
    changed = sorted(key for key in (set(earlier) | set(settings)) - set(ignored)
                     if earlier.get(key) != settings.get(key))
    if changed:
        raise UsageError(f"{out} holds results of another run ({', '.join(changed)} differ from this run's): {advice}")
    if tasks is not None:
        from bench.store.records import read_records

        foreign = sorted({r.get("task_id") for path in held for r in read_records(path)} - tasks)
        if foreign:
            raise UsageError(f"{out} holds results of {len(foreign)} task(s) this run does not select "
                             f"({', '.join(map(str, foreign[:3]))}{', …' if len(foreign) > 3 else ''}): {advice}")


_DESTINATION = ("out", "name", "update_reference", "no_resume", "retry_errors", "help")


def again_command(args, out: Path, *, add: tuple[str, ...] = ()) -> str:
    """The command line that runs ``args`` again into ``out`` (resuming it), with ``add`` options: the options
    given (those that differ from their defaults), then how the folder was chosen — ``--name``,
    ``--update-reference``, or ``--out`` (a timestamped folder is named by --out). --no-resume is left out."""
    import argparse
    import shlex

    from bench.cli.main import build_parser

    verbs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    words = ["bench", args.verb]
    for action in verbs.choices[args.verb]._actions:
        if not action.option_strings or action.dest in _DESTINATION:
            continue
        value = getattr(args, action.dest, action.default)
        if value == action.default:
            continue
        flag = max(action.option_strings, key=len)
        words += [flag] if action.nargs == 0 else [flag, str(value)]
    words += add
    if getattr(args, "name", None):
        words += ["--name", args.name]
    elif getattr(args, "update_reference", False):
        words += ["--update-reference", *(["--out", str(out)] if args.out is not None else [])]
    else:
        words += ["--out", str(out)]
    return shlex.join(words)


def conclude_run(result, out: Path, model_id: str, *, report: bool, wall_seconds: float,
                 again: str | None = None) -> int:
    """What every finished run prints and writes after its records: the summary, report/ and summary.json;
    ``again``: the command that runs its infrastructure errors again."""
    from bench.report.console import summary_lines

    print(f"{model_id}: {len(result.records)} units ({result.ran} run now, {result.skipped} resumed) → "
          f"{result.results_path}")
    for line in summary_lines(result.records):
        print(line)
    if report and result.records:
        from bench.report.build import build_report

        paths = build_report(list(result.records), out / "report", run_dir=out)
        print(f"report: {paths.md} {paths.html}", file=sys.stderr)
    return finish_run(result, out, wall_seconds, again=again)


def finish_run(result, out: Path, wall_seconds: float, *, again: str | None = None) -> int:
    """Write summary.json; with infrastructure errors, name them on stderr and exit 3."""
    from bench.errors import EXIT_INFRA
    from bench.report.run_summary import error_lines, run_summary, write_summary

    write_summary(out, run_summary(result.records, ran=result.ran, resumed=result.skipped,
                                   wall_seconds=wall_seconds, selection=getattr(result, "selection", None)))
    lines = error_lines(result.records, out)
    if lines and again:
        lines[-1] = f"fix the cause, then run them again: {again}"
    for line in lines:
        print(line, file=sys.stderr)
    return EXIT_INFRA if lines else 0


@contextlib.contextmanager
def removed_if_refused(out: Path):
    """A run refused before its first record (no API key, settings that differ from the folder's) leaves no
    folder behind that it created."""
    created = not out.exists()
    try:
        yield
    except BaseException:
        log = out / "records.jsonl"
        if created and (not log.exists() or log.stat().st_size == 0):
            from bench.sandbox.cleanup import remove_tree

            remove_tree(out)
            with contextlib.suppress(OSError):  # the model's folder of results/runs/, if this made it and it is empty
                out.parent.rmdir()
        raise


@contextlib.contextmanager
def resume_hint(out: Path, again: str):
    """Ctrl-C (or SIGTERM): units in flight are stopped, finished ones are kept; say where and the command that
    goes on."""
    try:
        yield
    except KeyboardInterrupt:
        log = out / "records.jsonl"
        if log.exists() and log.stat().st_size:
            kept = sum(1 for line in log.read_bytes().splitlines() if line.strip())
            print(f"stopped: {kept} units are recorded in {out}; units that were running are not and will run "
                  f"again: resume with: {again}", file=sys.stderr)
        raise
