import json

from bench.cli.main import main

SPEC = {"schema_version": 1, "kind": "pr", "repo": "acme/widgets", "base_sha": "a" * 40, "fix_sha": "b" * 40,
        "source_files": ["widgets/core.py"], "test_files": ["tests/test_core.py"],
        "fail_to_pass": ["tests/test_core.py::test_fix"], "pass_to_pass": [], "image": "trixie-py313",
        "provenance": {"source": "pull-request", "pr_number": 4, "url": "https://github.com/acme/widgets/pull/4",
                       "merged_at": "2023-11-18T22:13:20Z", "title": "Fix off-by-one (#4)"}}


def _pool(tmp_path, monkeypatch):
    (tmp_path / "pants.toml").write_text("")
    for number in (4, 9):
        folder = tmp_path / "tasks" / "widgets"
        folder.mkdir(parents=True, exist_ok=True)
        doc = dict(SPEC, task_id=f"widgets-{number}", lockfile=f"lockfiles/tasks/widgets-{number}.lock")
        (folder / f"widgets-{number}.json").write_text(json.dumps(doc))
    drops = tmp_path / "tasks" / "_dropped"
    drops.mkdir()
    for number, reason in ((5, "nothing_flips"), (6, "duplicate_of:widgets-4"), (7, "nothing_flips")):
        candidate = dict(SPEC, task_id=f"widgets-{number}", fail_to_pass=[])
        (drops / f"widgets-{number}.json").write_text(json.dumps({"candidate": candidate, "reason": reason}))
    monkeypatch.setenv("BENCH_ROOT", str(tmp_path))


def test_stats_give_each_librarys_yield_and_drop_reasons(tmp_path, monkeypatch, capsys):
    _pool(tmp_path, monkeypatch)
    assert main(["pool", "stats", "--kind", "pr"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["widgets", "pr", "5", "2", "3", "40%", "duplicate_of=1,", "nothing_flips=2"]
    assert lines[2].startswith("total: 2 admitted tasks from 1 libraries") and lines[2].endswith("; 3 dropped")
    assert lines[4] == "distinct bugs: 2 (2 items; 0 cross-kind duplicates)"
    assert main(["pool", "stats", "--kind", "mutation"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 11  # header, totals, digest, distinct bugs, kinds, dates: no widgets
    assert lines[-2:] == ["tasks by date          pr    all", "2023Q4                  2      2  #"]


def test_stats_count_each_librarys_judged_changes_and_over_specified_tasks(tmp_path, monkeypatch, capsys):
    _pool(tmp_path, monkeypatch)
    path = tmp_path / "tasks" / "widgets" / "widgets-9.json"
    doc = json.loads(path.read_text())
    judgement = {"verdict": "feature", "signals": ["new-api:1/1"], "over_specified": ["tests/test_core.py::test_fix"]}
    path.write_text(json.dumps(dict(doc, provenance=dict(doc["provenance"], judgement=judgement))))
    assert main(["pool", "stats", "--kind", "pr"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("judged"))
    lines = lines[at:]
    assert lines[0].split() == ["judged", "changes", "kind", "bugfix", "feature", "breaking", "change", "revert", "unclear",
                                "unjudged", "over-specified"]
    assert lines[1].split() == ["widgets", "pr", "0", "1", "0", "0", "0", "0", "1", "1"]
    assert main(["list", "judgement:feature", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert (listed["task_id"], listed["judgement"], listed["over_specified"]) == ("widgets-9", "feature", 1)
    assert listed["date"] == "2023-11-18"  # its merge day
    assert main(["list", "judgement:none"]) == 0
    assert capsys.readouterr().out.split("\t")[0] == "widgets-4"


def test_the_pool_digest_changes_with_any_admitted_spec(tmp_path, monkeypatch, capsys):
    _pool(tmp_path, monkeypatch)
    main(["pool", "stats", "--json"])
    before = json.loads(capsys.readouterr().out)["digest"]
    path = tmp_path / "tasks" / "widgets" / "widgets-9.json"
    path.write_text(json.dumps(dict(json.loads(path.read_text()), fail_to_pass=["tests/test_core.py::test_other"])))
    main(["pool", "stats", "--json"])
    assert json.loads(capsys.readouterr().out)["digest"] != before


def test_classes_count_mutation_drops_in_the_yield_columns_of_mutate(tmp_path, monkeypatch, capsys):
    _pool(tmp_path, monkeypatch)
    drops = tmp_path / "tasks" / "_dropped"
    mutant = {"kind": "mutation", "sdist": {"name": "Tiny_Lib"}, "repo": "pypi/tiny-lib"}
    reasons = ("nothing_flips", "too_many_targets", "too_many_targets", "collection_failed_at_base", "timeout",
               "giveaway:a_test_that_contradicts_its_block", "duplicate_of:mutation.tiny-lib.1.0.aa", "install_failed")
    for number, reason in enumerate(reasons):
        candidate = dict(mutant, task_id=f"mutation.tiny-lib.1.0.{number:02d}")
        (drops / f"{candidate['task_id']}.json").write_text(json.dumps({"candidate": candidate, "reason": reason}))
    assert main(["pool", "stats", "--classes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["library", "candidates", "good", "broad", "undetected", "import", "timeout",
                                "giveaway", "other"]
    # No admitted mutant: good 0; broad 2 of 8; one each undetected, import, timeout, giveaway (refused before any
    # run); duplicate + install = other.
    assert lines[1].split() == ["tiny-lib", "8", "0", "0%", "2", "25%", "1", "12%", "1", "12%", "1", "12%",
                                "1", "12%", "2", "25%"]
    assert lines[2].split()[:3] == ["all", "mutation", "8"]  # the PR library is not a mutation row


def _measured(tmp_path, task_id: str, made: int, run: int, killed: int, survivors: list, certificate: bytes):
    import gzip

    from bench.gate import adequacy_store
    from bench.gate.adequacy import Adequacy, Survivor

    path = tmp_path / "results" / "certificates" / f"{task_id}.json.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(certificate, mtime=0))
    result = Adequacy(task_id, "2", made, run, killed, tuple(Survivor(*row) for row in survivors))
    adequacy_store.write(tmp_path, result)


def test_stats_and_list_show_adequacy_measured_under_the_current_certificate(tmp_path, monkeypatch, capsys):
    _pool(tmp_path, monkeypatch)
    _measured(tmp_path, "widgets-4", 30, 24, 22, [["widgets/core.py", "comparison", 3, 10, 11],
                                                  ["widgets/core.py", "wrong_variable", 4, 20, 21]], b'{"a":1}')
    _measured(tmp_path, "widgets-9", 5, 5, 5, [], b'{"b":1}')
    assert main(["pool", "stats", "--kind", "pr"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3].split() == ["test", "adequacy", "kind", "tasks", "measured", "no", "near", "miss", "median",
                                 "any", "survivor"]
    # median of 22/24 and 5/5; one of the two lets a near miss through
    assert lines[-2].split() == ["widgets", "pr", "2", "2", "0", "0.96", "1", "(50%)"]
    assert main(["list", "widgets-4", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert (listed["adequacy_band"], listed["near_miss_survivors"], listed["weak_tests"]) == ("some survive", 2, True)
    assert listed["adequacy"] == round(22 / 24, 4)
    # a certificate that changed since the measurement makes it stale: read as unmeasured
    (tmp_path / "results" / "certificates" / "widgets-4.json.gz").write_bytes(__import__("gzip").compress(b"{}"))
    assert main(["list", "widgets-4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {**{k: v for k, v in listed.items() if k not in (
        "adequacy", "near_miss_survivors", "weak_tests")}, "adequacy_band": "unmeasured"}


def test_stats_list_each_librarys_last_mining_run_and_the_candidates_it_never_tried(tmp_path, monkeypatch, capsys):
    from bench.mine.pipeline import AdmitRecord, write_mining_record

    _pool(tmp_path, monkeypatch)
    report = {"branch": "refs/heads/main", "head": "c" * 40, "options": {"cap": 2, "limit": None},
              "counts": {"candidates": 4}, "candidates": [{"task_id": f"widgets-{n}"} for n in (4, 9, 11, 12)],
              "filtered": []}
    records = (AdmitRecord("widgets-4", "admitted", "admitted", 1.0), AdmitRecord("widgets-9", "admitted", "admitted", 1.0),
               AdmitRecord("widgets-11", "over_library_cap", "cap 2 reached", 0.0),
               AdmitRecord("widgets-12", "over_library_cap", "cap 2 reached", 0.0))
    write_mining_record(tmp_path, "acme/widgets", report, records)
    assert main(["pool", "stats", "--kind", "pr"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].split() == ["widgets", "main", "cccccccccc", "4", "2", "2", "cap", "2", "reached"]
    assert main(["pool", "stats", "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["mining"]
    assert run["never_tried"] == ["widgets-11", "widgets-12"] and run["settings"] == {"cap": 2, "limit": None}


def test_stats_print_tasks_and_libraries_per_kind_as_a_table_not_a_dict(tmp_path, monkeypatch, capsys):
    _pool(tmp_path, monkeypatch)
    assert main(["pool", "stats"]) == 0
    out = capsys.readouterr().out
    assert "{" not in out and "}" not in out
    lines = out.splitlines()
    start = lines.index("by kind                   tasks libraries")
    assert [line.split() for line in lines[start + 1:start + 3]] == [["pr", "2", "1"], ["all", "2", "1"]]


def test_a_project_under_two_names_is_one_library(tmp_path, monkeypatch, capsys):
    # widgets-* come from acme/widgets; a fork's task from acme/python-widgets is the same PyPI project.
    _pool(tmp_path, monkeypatch)
    folder = tmp_path / "tasks" / "python-widgets"
    folder.mkdir()
    doc = dict(SPEC, repo="acme/python-widgets", task_id="python-widgets-1",
               lockfile="lockfiles/tasks/python-widgets-1.lock")
    (folder / "python-widgets-1.json").write_text(json.dumps(doc))
    main(["pool", "stats", "--json"])
    assert json.loads(capsys.readouterr().out)["library_count"] == 2  # no alias table: two names, two libraries
    (tmp_path / "tasks" / "_projects.json").write_text(json.dumps({"aliases": {"python-widgets": "widgets"}}))
    main(["pool", "stats", "--json"])
    stats = json.loads(capsys.readouterr().out)
    assert (stats["library_count"], stats["libraries_by_kind"]) == (1, {"pr": 1})
    assert {row["library"]: row["project"] for row in stats["libraries"]} == {"python-widgets": "widgets",
                                                                             "widgets": "widgets"}


def test_the_pools_library_count_is_its_number_of_projects():
    """Library names whose tasks edit the same import package are one project (jinja and jinja2, python-semver
    and semver, python-tabulate and tabulate): the count is of those groups, not of names."""
    from bench.spec.kind_registry import get_kind
    from bench.spec.load import discover, load_all
    from bench.testing.support import checkout_root

    from bench.cli.pool import pool_stats

    root = checkout_root()
    specs = load_all(discover(root))
    packages: dict = {}
    for spec in specs:
        if get_kind(spec.kind).is_library():
            packages.setdefault(spec.library, set()).update(get_kind(spec.kind).selector_names(spec))
    groups: list[set] = []  # names joined when they share an import package
    for name, names_packages in packages.items():
        joined = [group for group in groups if any(packages[other] & names_packages for other in group)]
        merged = {name}.union(*joined)
        groups = [group for group in groups if group not in joined] + [merged]
    assert len(packages) > len(groups)  # the pool does hold projects under two names
    assert pool_stats(specs, root)["library_count"] == len(groups)
