"""Every task has a date (a PR's merge, a mutated release's upload, a synthetic task's authoring), in the pool
and among the retired tasks whose runs must still verify, and the dates agree with what they are read from."""

import datetime
import json
from collections import defaultdict

from bench.cli.main import main
from bench.spec.dates import tasks_per_quarter
from bench.spec.load import discover, load_all, select
from bench.spec.model import utc_day
from bench.testing.support import checkout_root

ROOT = checkout_root()
TODAY = datetime.datetime.now(datetime.timezone.utc).date().isoformat()


def test_every_task_of_the_pool_and_every_retired_task_is_dated_no_later_than_today():
    specs = load_all(discover(ROOT, retired=True))
    assert [s.task_id for s in specs if not s.date] == []
    assert [s.task_id for s in specs if s.date > TODAY] == []


def test_each_kind_is_dated_by_what_it_comes_from():
    specs = load_all(discover(ROOT, retired=True))
    pr = [s for s in specs if s.kind == "pr"]
    assert pr and all(s.date == utc_day(s.provenance.merged_at) for s in pr)
    by_release = defaultdict(set)
    for s in specs:
        if s.kind == "mutation":
            by_release[(s.sdist.name, s.sdist.version)].add(s.provenance.released)
    assert by_release and [release for release, days in by_release.items() if len(days) != 1] == []
    synthetic = [s for s in specs if s.kind == "synthetic"]
    assert synthetic and all(s.provenance.authored for s in synthetic)


def test_list_shows_the_date_and_after_before_partition_the_dated_pool(capsys):
    pool = load_all(discover(ROOT))
    assert main(["list", "--json", "kind:synthetic"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {row["task_id"]: row["date"] for row in listed} == {s.task_id: s.date for s in pool
                                                               if s.kind == "synthetic"}
    cutoff = sorted(s.date for s in pool)[len(pool) // 2]
    after, before = select(pool, f"after:{cutoff}"), select(pool, f"before:{cutoff}")
    assert len(after) + len(before) == len(pool) and not {s.task_id for s in after} & {s.task_id for s in before}
    assert sum(sum(row.values()) for row in tasks_per_quarter(pool).values()) == len(pool)
