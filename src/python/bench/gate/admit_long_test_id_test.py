"""Admission edge cases: test ids longer than the schema allows (huge parametrize values), plugins' checks of a file's text, unresolvable locks."""

import json

from bench.gate import admit as admit_module
from bench.gate.certify import Certificate, CertifyOutcome
from bench.gate.sets import Decision, GateSets
from bench.spec.model import Judgement

SHA_BASE, SHA_FIX = "a" * 40, "b" * 40
LONG_ID = "tests/test_style.py::test_style[" + "x" * 1200 + "]"


def _candidate() -> dict:
    return {"schema_version": 1, "task_id": "widgets-7", "kind": "pr", "repo": "acme/widgets",
            "base_sha": SHA_BASE, "fix_sha": SHA_FIX, "source_files": ["pkg/core.py"],
            "test_files": ["tests/test_core.py"], "fail_to_pass": [], "pass_to_pass": [], "image": "trixie-py313",
            "lockfile": "lockfiles/tasks/widgets-7.lock",
            "provenance": {"source": "pull-request", "pr_number": 7, "url": "https://github.com/acme/widgets/pull/7",
                           "merged_at": "2024-01-01T00:00:00Z", "title": "Fix core (#7)"}}


def _certified(fail_to_pass, pass_to_pass):
    sets = GateSets(tuple(fail_to_pass), tuple(pass_to_pass), (), (), ())
    cert = Certificate("widgets-7", "0" * 64, 3, "trixie-py313", "d" * 64, "1" * 64, "e" * 64, {}, "0", "gate-v1",
                       (), sets, Decision(True, "admitted"))
    return lambda *args, **kwargs: CertifyOutcome(cert, False, {})


def _pool(tmp_path, monkeypatch, fail_to_pass, pass_to_pass, judgement=Judgement("bugfix", ("title:bugfix",))):
    import shutil

    from bench.testing.support import checkout_root

    shutil.copytree(checkout_root() / "images", tmp_path / "images")  # the certificate key names the image pin
    (tmp_path / "tasks").mkdir()
    (tmp_path / "lockfiles" / "tasks").mkdir(parents=True)
    (tmp_path / "lockfiles" / "tasks" / "widgets-7.lock").write_text("# locked\n")  # present: no relock
    monkeypatch.setattr(admit_module, "certify", _certified(fail_to_pass, pass_to_pass))
    monkeypatch.setattr(admit_module, "sync_build", lambda root, pool=None: None)
    monkeypatch.setattr(admit_module, "honest_fix_findings", lambda spec, root: ())  # no repository: none to scan
    monkeypatch.setattr(admit_module, "judge_document", lambda doc, fix_side_failing=(): judgement)  # nor to judge
    return admit_module.admit(_candidate(), tmp_path, relock=False)


def test_overlong_pass_to_pass_ids_are_left_out_and_the_task_is_admitted(tmp_path, monkeypatch):
    result = _pool(tmp_path, monkeypatch, ["tests/test_core.py::test_fix"], ["tests/test_core.py::test_ok", LONG_ID])
    assert (result.admitted, result.reason) == (True, "admitted")
    spec = json.loads(result.spec_path.read_text())
    assert (spec["fail_to_pass"], spec["pass_to_pass"]) == (["tests/test_core.py::test_fix"],
                                                            ["tests/test_core.py::test_ok"])


def test_a_change_nothing_calls_a_fix_is_dropped_with_its_judgement(tmp_path, monkeypatch):
    result = _pool(tmp_path, monkeypatch, ["tests/test_core.py::test_fix"], [], judgement=Judgement("unclear"))
    assert (result.admitted, result.reason) == (False, "not_a_bugfix:unclear")
    dropped = json.loads((tmp_path / "tasks" / "_dropped" / "widgets-7.json").read_text())
    assert (dropped["reason"], dropped["judgement"]["verdict"]) == ("not_a_bugfix:unclear", "unclear")
    assert dropped["fail_to_pass"] == ["tests/test_core.py::test_fix"]  # what two readers would be shown


def test_a_title_only_fix_two_readers_found_a_bug_is_admitted_when_retried(tmp_path, monkeypatch):
    from dataclasses import replace

    from bench.gate import pr_readings
    from bench.gate.judgement import FixChange, judge

    dropped = _pool(tmp_path, monkeypatch, ["tests/test_core.py::test_fix"], [], judgement=Judgement("unclear"))
    assert not dropped.admitted
    assert [s.task_id for s in pr_readings.readable_drops(tmp_path)] == ["widgets-7"]
    record = pr_readings.merge({}, [("widgets-7", "good", "the docstring promises it")], "reader A")
    record = pr_readings.merge(record, [("widgets-7", "questionable: R3", "a real bug; hint thin")], "reader B")
    (tmp_path / pr_readings.RECORD).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / pr_readings.RECORD).write_text(pr_readings.render(record))
    confirmed = pr_readings.load(tmp_path)["widgets-7"].bug_confirmed
    source = (("pkg/core.py", "def core():\n    return 1\n"),)
    tests = (("tests/test_core.py", "def test_fix():\n    assert core() == 2\n"),)
    title_only = FixChange(title="Fix the core", message="Fix the core", changed_paths=("pkg/core.py",), notes=(),
                           source_before=source, source_after=(("pkg/core.py", "def core():\n    return 2\n"),),
                           tests_before=(("tests/test_core.py", ""),), tests_after=tests,
                           fail_to_pass=("tests/test_core.py::test_fix",),
                           read_as_bug=confirmed)
    assert judge(replace(title_only, read_as_bug=False)).verdict == "unclear"  # the title alone admits nothing
    monkeypatch.setattr(admit_module, "judge_document", lambda doc, fix_side_failing=(): judge(title_only))
    assert not (tmp_path / "lockfiles" / "tasks" / "widgets-7.lock").exists()  # the drop took its lock along
    (tmp_path / "lockfiles" / "tasks" / "widgets-7.lock").write_text("# locked\n")  # as the retry relocks it
    result = admit_module.admit(_candidate(), tmp_path, relock=False)
    assert (result.admitted, result.reason) == (True, "admitted")
    assert not (tmp_path / "tasks" / "_dropped" / "widgets-7.json").exists()


def test_a_fix_whose_every_target_pins_what_only_it_could_know_is_dropped(tmp_path, monkeypatch):
    targets = ["tests/test_core.py::test_fix", "tests/test_core.py::test_message"]
    pinned = Judgement("bugfix", ("title:bugfix",), tuple(targets))
    result = _pool(tmp_path, monkeypatch, targets, [], judgement=pinned)
    assert (result.admitted, result.reason) == (False, "over_specified:2/2")
    half = Judgement("bugfix", ("title:bugfix",), (targets[1],))  # one target any correct fix passes: kept
    assert _pool(tmp_path / "again", monkeypatch, targets, [], judgement=half).admitted


def test_an_overlong_target_id_drops_the_task(tmp_path, monkeypatch):
    result = _pool(tmp_path, monkeypatch, [LONG_ID], [])
    assert (result.admitted, result.reason) == (False, "target_id_too_long")
    dropped = json.loads((tmp_path / "tasks" / "_dropped" / "widgets-7.json").read_text())
    assert dropped["reason"] == "target_id_too_long"


def test_a_candidate_whose_lock_cannot_be_resolved_is_recorded_as_dropped(tmp_path, monkeypatch):
    from bench.errors import EnvironmentBuildError

    def unresolvable(*args, **kwargs):
        raise EnvironmentBuildError("pip-compile failed:\nTraceback …\nResolutionImpossible: for help visit …")

    (tmp_path / "tasks").mkdir()
    monkeypatch.setattr(admit_module, "lock_candidate", unresolvable)
    result = admit_module.admit(_candidate(), tmp_path)
    assert (result.admitted, result.reason) == (
        False, "lock_failed: pip-compile failed: … Traceback … | ResolutionImpossible: for help visit …")
    dropped = json.loads((tmp_path / "tasks" / "_dropped" / "widgets-7.json").read_text())
    assert dropped["reason"] == result.reason


def test_a_collection_failure_drop_names_the_modules_that_failed(tmp_path, monkeypatch):
    from bench.gate.sets import RunSummary

    runs = (RunSummary("base", 0, 2, False, (), ("tests/test_imports.py",), True),
            RunSummary("fix", 0, 2, False, (), ("tests/test_imports.py",), True),
            RunSummary("fix", 1, 4, False, (), (), False))
    cert = Certificate("widgets-7", "0" * 64, 3, "trixie-py313", "d" * 64, "1" * 64, "e" * 64, {}, "0", "gate-v1",
                       runs, GateSets((), (), (), (), ()), Decision(False, "collection_failed"))
    from bench.spec.load import spec_from_document

    spec = spec_from_document(_candidate())
    result = admit_module.conclude(_candidate(), spec, cert, tmp_path, k=3, sandbox_name="bwrap", max_targets=None)
    assert (result.admitted, result.reason) == (False, "collection_failed")
    dropped = json.loads((tmp_path / "tasks" / "_dropped" / "widgets-7.json").read_text())
    assert dropped["collection_errors"] == ["base: tests/test_imports.py", "fix: no report", "fix: tests/test_imports.py"]


def _outcome(reason: str):
    sets = GateSets(("tests/test_core.py::test_fix",) if reason == "admitted" else (), (), (), (), ())
    cert = Certificate("widgets-7", "0" * 64, 3, "trixie-py313", "d" * 64, "1" * 64, "e" * 64, {}, "0", "gate-v1",
                       (), sets, Decision(reason == "admitted", reason))
    return CertifyOutcome(cert, False, {})


OWN = "# the task's own pytest\n"
RUNNER_LOCK = "# pytest as of the interpreter\n"
ALL_LOCK = "# everything as of the interpreter\n"


def _later_attempts(tmp_path, monkeypatch, relocks: dict, reasons: dict):
    """Admission's later attempts, with lock_candidate writing ``relocks[late]`` (or failing when absent) and
    certification answering ``reasons[lock text]``."""
    from bench.errors import EnvironmentBuildError
    from bench.spec.load import spec_from_document

    lock = tmp_path / "lockfiles" / "tasks" / "widgets-7.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text(OWN)
    calls, certified = [], []

    def relock(spec, root, **kw):
        calls.append(kw["late"])
        if kw["late"] not in relocks:
            raise EnvironmentBuildError("pip-compile failed")
        lock.write_text(relocks[kw["late"]])

    def certify(*a, **kw):
        certified.append(lock.read_text())
        return _outcome(reasons[lock.read_text()])

    monkeypatch.setattr(admit_module, "lock_candidate", relock)
    monkeypatch.setattr(admit_module, "certify", certify)
    spec = spec_from_document(_candidate())
    first = _outcome("collection_failed")
    result = admit_module._with_later_releases(spec, tmp_path, first, admit_module.later_attempts("collection_failed"),
                                               k=3, sandbox_name="bwrap", mirror=None, max_targets=None)
    return result.certificate.decision.reason, lock.read_text(), calls, certified


def test_a_suite_its_own_pytest_cannot_collect_is_certified_again_with_a_later_runner(tmp_path, monkeypatch):
    got = _later_attempts(tmp_path, monkeypatch, {("pytest",): RUNNER_LOCK}, {RUNNER_LOCK: "admitted"})
    assert got == ("admitted", RUNNER_LOCK, [("pytest",)], [RUNNER_LOCK])


def test_every_requirement_as_of_the_interpreter_is_the_last_attempt(tmp_path, monkeypatch):
    relocks = {("pytest",): RUNNER_LOCK, ("",): ALL_LOCK}
    got = _later_attempts(tmp_path, monkeypatch, relocks, {RUNNER_LOCK: "collection_failed", ALL_LOCK: "admitted"})
    assert got == ("admitted", ALL_LOCK, [("pytest",), ("",)], [RUNNER_LOCK, ALL_LOCK])
    got = _later_attempts(tmp_path / "b", monkeypatch, {("",): ALL_LOCK}, {ALL_LOCK: "nothing_flips"})
    assert got == ("nothing_flips", ALL_LOCK, [("pytest",), ("",)], [ALL_LOCK])  # runner lock failed: skipped


def test_the_first_lock_and_outcome_stand_when_no_later_lock_collects(tmp_path, monkeypatch):
    relocks = {("pytest",): RUNNER_LOCK, ("",): ALL_LOCK}
    failing = {RUNNER_LOCK: "collection_failed", ALL_LOCK: "collection_failed"}
    reason, lock, _, certified = _later_attempts(tmp_path, monkeypatch, relocks, failing)
    assert (reason, lock, certified) == ("collection_failed", OWN, [RUNNER_LOCK, ALL_LOCK])


def test_a_later_lock_no_different_is_not_certified_again(tmp_path, monkeypatch):
    relocks = {("pytest",): OWN, ("",): RUNNER_LOCK}
    reason, lock, _, certified = _later_attempts(tmp_path, monkeypatch, relocks, {RUNNER_LOCK: "collection_failed"})
    assert (reason, lock, certified) == ("collection_failed", OWN, [RUNNER_LOCK])
    relocks = {("pytest",): RUNNER_LOCK, ("",): RUNNER_LOCK}
    _, _, _, certified = _later_attempts(tmp_path / "b", monkeypatch, relocks, {RUNNER_LOCK: "collection_failed"})
    assert certified == [RUNNER_LOCK]  # the same later lock twice is certified once


def test_which_later_locks_admission_tries_after_which_failure():
    assert admit_module.later_attempts("collection_failed") == (("pytest",), ("",))
    unbuilt = "install_failed: building cffi-1.16.0.tar.gz into a wheel failed (exit code 1): … terminated."
    assert admit_module.later_attempts(unbuilt) == (("cffi",), ("",))
    assert admit_module.later_attempts("install_failed: editable install of repo failed (exit code 1)") == ()
    assert admit_module.later_attempts("nothing_flips") == ()
    assert admit_module.later_attempts("collection_failed_at_base") == ()


def test_a_later_lock_that_still_cannot_install_is_not_the_answer(tmp_path, monkeypatch):
    relocks = {("pytest",): RUNNER_LOCK, ("",): ALL_LOCK}
    reasons = {RUNNER_LOCK: "install_failed: building x-1.0.tar.gz into a wheel failed", ALL_LOCK: "admitted"}
    got = _later_attempts(tmp_path, monkeypatch, relocks, reasons)
    assert got == ("admitted", ALL_LOCK, [("pytest",), ("",)], [RUNNER_LOCK, ALL_LOCK])


def _certificate_with_base_runs(reason: str, *, had_report: bool):
    from dataclasses import replace

    from bench.gate.sets import RunSummary

    base = RunSummary("base", 0, 1, False, (), (), had_report)
    return replace(_outcome(reason).certificate, runs=(base,))


def test_a_base_side_that_left_no_report_is_retried_like_a_runner_that_cannot_collect():
    # pytest 5.3 does not start on Python 3.13: the base runs leave no report and the gate stops there
    silent = _certificate_with_base_runs("collection_failed_at_base", had_report=False)
    assert admit_module.environment_reason(silent) == "collection_failed"
    assert admit_module.later_attempts(admit_module.environment_reason(silent)) != ()
    # a base side that reported its collection errors (the fix's tests import what only the fix adds) is the
    # task's own failure: no later release is tried
    reported = _certificate_with_base_runs("collection_failed_at_base", had_report=True)
    assert admit_module.environment_reason(reported) == "collection_failed_at_base"
    assert admit_module.later_attempts(admit_module.environment_reason(reported)) == ()


def test_an_admitted_task_joins_the_build_file_of_its_folder_beside_the_tasks_already_there(tmp_path, monkeypatch):
    from bench.gate.pants_targets import render_build
    from bench.spec.load import discover, load_all

    real_sync = admit_module.sync_build
    first = _pool(tmp_path, monkeypatch, ["tests/test_core.py::test_fix"], [])
    folder = first.spec_path.parent
    older = dict(_candidate(), task_id="widgets-3", fail_to_pass=["tests/test_core.py::test_old"],
                 lockfile="lockfiles/tasks/widgets-3.lock", fix_sha="c" * 40)
    (folder / "widgets-3.json").write_text(json.dumps(older))
    first.spec_path.unlink()
    calls = []
    monkeypatch.setattr(admit_module, "sync_build", lambda root, pool=None: calls.append(pool) or real_sync(root, pool))
    result = admit_module.admit(_candidate(), tmp_path, relock=False)
    assert result.admitted and len(calls) == 1
    assert sorted(s.task_id for s in calls[0]) == ["widgets-3", "widgets-7"]
    assert (folder / "BUILD").read_text() == render_build(load_all(discover(tmp_path)), folder)


def test_a_plugins_check_of_a_files_text_is_left_out_of_the_sets(tmp_path, monkeypatch):
    # pytest-black's BLACK item checks the test file's formatting, which the scored run's rewriting of that file
    # changes: as a pass_to_pass test it broke every honest fix of two inflect tasks.
    checks = ["tests/test_core.py::BLACK", "tests/test_core.py::mypy", "tests/test_core.py::mypy-status",
              "tests/test_core.py::flake-8::FLAKE8"]
    result = _pool(tmp_path, monkeypatch, ["tests/test_core.py::test_fix"], ["tests/test_core.py::test_ok", *checks])
    assert (result.admitted, result.reason) == (True, "admitted")
    spec = json.loads(result.spec_path.read_text())
    assert (spec["fail_to_pass"], spec["pass_to_pass"]) == (["tests/test_core.py::test_fix"],
                                                            ["tests/test_core.py::test_ok"])


def test_a_candidate_whose_only_targets_are_file_checks_is_dropped(tmp_path, monkeypatch):
    result = _pool(tmp_path, monkeypatch, ["tests/test_core.py::BLACK"], ["tests/test_core.py::test_ok"])
    assert (result.admitted, result.reason) == (False, "only_file_checks_fail")
    dropped = json.loads((tmp_path / "tasks" / "_dropped" / "widgets-7.json").read_text())
    assert dropped["reason"] == "only_file_checks_fail"
