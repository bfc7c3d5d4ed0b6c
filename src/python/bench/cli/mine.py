"""`bench mine REPO --mirror PATH`: find merged bug-fix pull requests and write candidate task specs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

EPILOG = """examples:
  bench mine pallets/click --mirror /mirrors/pallets+click --since 2022-01-01  (into .bench/candidates/click/)
  bench mine jpadilla/pyjwt --since 2022-01-01 --admit --max-targets 20      (mirror from $BENCH_MIRROR_DIR)
  bench mine dateutil/dateutil --admit --retry lock_failed --retry install_failed
  bench mine dateutil/dateutil --admit --image bookworm-py311 --retry collection_failed
History is walked newest first along the first parents of the default branch (or --branch); inside a merge of a
maintenance or release branch ("Merge branch 'stable'"), and inside a PR whose branch holds merged PRs of its
own (a release branch merged as a PR: "Changes for release …"), the PRs it brings in are candidates too, each
with the parent it was made on as its base. A PR is recognised by "Merge pull request #N", a subject ending in "(#N)" or a
"PR: #N" / "PR-URL: …/pull/N" trailer; --direct-commits adds fixes committed without a PR (task id
<lib>-c<sha>). Defaults of the limits: --cap 25, --max-source-files 6, --max-source-lines 300, --max-files 10.
Every candidate is written to OUT/<task_id>.json and every commit that was filtered out, with its reason, to
OUT/mine-report-<lib>.json (OUT: --out, default .bench/candidates/<lib> in the checkout, which git ignores);
with --admit, OUT/admit-log-<lib>.json holds each candidate's outcome, wall seconds and the seconds spent
locking, building the environment, preparing workspaces and running tests (scripts/throughput.py sums them).
Without --admit the cap limits the candidates; with --admit it limits the library's admitted tasks: candidates
are admitted one at a time, in order, until the library holds CAP tasks. Inside a checkout, task ids the pool
already admitted, dropped or retired are not candidates again (how many of each is printed), so a rerun
continues where the last one stopped (tasks/_mining/<lib>.json records each run's settings, branch, head and
the candidates it never tried; bench pool stats lists them); --include-known proposes them too, the raw
proposals (to measure recall against another pool), with the cap not reduced by the pool's tasks (admission
still skips them). `--retry lock_failed` (say, after the lock collector improved) makes the drops with that
reason candidates again. `--image` names
the folder under images/ the candidates are locked, certified and scored in (default trixie-py313); an image
with an older Python serves code that predates the default's (e.g. imports that the newer one deprecates).
Exit 0 when mining succeeded and (with --admit) every candidate tried was admitted; 1 when any was dropped,
as `bench admit` exits, or met a harness error (reported, and the run went on). Candidates not tried (known,
over the cap) do not count.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mine", help="mine candidate PR tasks from a repository's history", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("repo", help="owner/name (GitHub spelling)")
    p.add_argument("--mirror", type=Path, default=None, help="bare git mirror (default: $BENCH_MIRROR_DIR)")
    p.add_argument("--limit", type=int, default=None, help="at most N candidates")
    p.add_argument("--since", default="", help="skip PRs merged before this ISO date (e.g. 2022-01-01)")
    p.add_argument("--out", type=Path, default=None,
                   help="folder for candidates and the report (default: .bench/candidates/<lib> in the checkout, "
                        "git-ignored)")
    p.add_argument("--cap", type=int, default=25, help="per-library cap (default 25)")
    p.add_argument("--bugfix-only", action="store_true", help="require a bug-fix word in the title or body")
    p.add_argument("--max-source-files", type=int, default=6, help="skip fixes touching more source files (default 6)")
    p.add_argument("--max-source-lines", type=int, default=300,
                   help="skip fixes changing more source lines (default 300)")
    p.add_argument("--max-files", type=int, default=10, help="skip fixes touching more files in all (default 10)")
    p.add_argument("--branch", default=None, metavar="REF",
                   help="the branch to walk (default: the one the mirror's HEAD names; name the main development "
                        "branch when HEAD names a stale one)")
    p.add_argument("--no-maintenance-merges", action="store_true",
                   help="do not look inside merges of maintenance/release branches (or PRs of PRs) for the PRs "
                        "they bring in")
    p.add_argument("--include-known", action="store_true",
                   help="also propose task ids the pool already admitted, dropped or retired (the raw proposals)")
    p.add_argument("--direct-commits", action="store_true",
                   help="also propose fixes committed without a PR (subject naming a fix, source and tests changed)")
    p.add_argument("--metadata", action="store_true", help="try GitHub's API for PR metadata (optional)")
    p.add_argument("--admit", action="store_true", help="admit the candidates through the gate, one at a time")
    p.add_argument("--k", type=int, default=3, help="with --admit: gate runs per side (default 3)")
    p.add_argument("--sandbox", default=None, help="sandbox backend: bwrap (default, or $BENCH_SANDBOX) or docker")
    p.add_argument("--max-targets", type=int, default=None, help="admission drops candidates with more targets")
    p.add_argument("--image", default=None, help="scoring image of the candidates (default trixie-py313)")
    p.add_argument("--retry", action="append", default=[], metavar="REASON",
                   help="admit again the dropped candidates whose drop reason starts with REASON (repeatable)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.errors import UsageError
    from bench.mine.metadata import MetadataSession
    from bench.mine.miner import library_name
    from bench.mine.pipeline import mine_repository, skipped_as_known
    from bench.source.git import mirror_for
    from bench.variables import candidates_dir, find_checkout, find_root

    retry = tuple(args.retry)
    if retry and not args.admit:
        raise UsageError("--retry only means something with --admit")
    image = _image(args)
    git_dir = mirror_for(args.repo, args.mirror)
    if git_dir is None:
        raise UsageError(f"no mirror for {args.repo}: pass --mirror PATH or set BENCH_MIRROR_DIR")
    root = find_root() if args.admit else None
    pool = None if args.include_known else root or find_checkout()  # outside a checkout: nothing is known
    options, known = _options(args, pool, retry, admit=root is not None)
    _warn_if_head_is_stale(git_dir, args.branch)
    out = args.out or candidates_dir(library_name(args.repo))
    result, paths = mine_repository(git_dir, args.repo, options, out,
                                    metadata=MetadataSession(enabled=args.metadata), image=image, ref=args.branch)
    print(f"{args.repo}: {result.scanned} commits, {result.pr_merges} PR merges, "
          f"{len(result.candidates)} candidates → {out}")
    if known is not None:
        _say_skipped(skipped_as_known(result, known))
    for path in paths:
        print(path)
    return 0 if root is None else _admit(args, root, paths, out, retry)


def _image(args: argparse.Namespace) -> str:
    from bench.environment.image import ImageError, image_folder
    from bench.errors import UsageError
    from bench.mine.documents import DEFAULT_IMAGE

    if args.image:
        try:
            image_folder(args.image)
        except ImageError as error:
            raise UsageError(str(error)) from error
    return args.image or DEFAULT_IMAGE


def _options(args: argparse.Namespace, pool: Path | None, retry: tuple[str, ...], *, admit: bool):
    """The miner's options, and what the pool knows (None without a pool to skip by)."""
    from dataclasses import replace

    from bench.mine.miner import Bounds, MineOptions
    from bench.mine.pipeline import known_to_pool, options_with_pool

    bounds = Bounds(args.max_source_files, args.max_source_lines, args.max_files)
    options = MineOptions(since=args.since, limit=args.limit, cap=args.cap, bugfix_only=args.bugfix_only,
                          bounds=bounds, maintenance_merges=not args.no_maintenance_merges,
                          direct_commits=args.direct_commits)
    known = known_to_pool(pool, retry) if pool is not None else None
    if known is not None:
        options = options_with_pool(options, pool, args.repo, known)
    if admit:  # admission applies the cap to admitted tasks; mining skips only known task ids
        options = replace(options, cap=10**9, already_admitted=0)
    return options, known


def _admit(args: argparse.Namespace, root: Path, paths, out: Path, retry: tuple[str, ...]) -> int:
    from bench.cli.admit import exit_code
    from bench.mine.miner import library_name
    from bench.mine.pipeline import TRIED, admit_candidates, write_mining_record
    from bench.variables import get

    report = json.loads((out / f"mine-report-{library_name(args.repo)}.json").read_text())
    records = admit_candidates(paths, root, args.repo, cap=args.cap, mirror=args.mirror,
                               sandbox_name=args.sandbox or get("BENCH_SANDBOX"), k=args.k,
                               max_targets=args.max_targets, retry=retry, log_dir=out)
    print(write_mining_record(root, args.repo, report, records))
    for record in records:
        print(f"{record.outcome:<16} {record.task_id}: {record.reason}")
    return exit_code(record.outcome == "admitted" for record in records if record.outcome in TRIED)


def _say_skipped(counts: dict[str, int]) -> None:
    if sum(counts.values()):
        detail = ", ".join(f"{count} {why}" for why, count in counts.items())
        print(f"skipped {sum(counts.values())} proposals whose task id the pool knows ({detail}); "
              f"--include-known lists them")


def _warn_if_head_is_stale(git_dir: Path, branch: str | None) -> None:
    import sys

    from bench.mine.pipeline import stale_head_warning

    warning = stale_head_warning(git_dir, branch)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
