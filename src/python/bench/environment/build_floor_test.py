from bench.environment import build_floor as floor
from bench.environment.lock import LockInput

FIRST_PASS = """\
hypothesis==4.57.1 \\
    --hash=sha256:aaaa
setuptools==41.0.1 \\
    --hash=sha256:bbbb
six==1.12.0 \\
    --hash=sha256:cccc
"""


def test_build_requirements_get_a_later_cutoff_only_when_the_task_predates_the_interpreter():
    assert floor.build_cutoff("3.13", "2019-04-23T15:58:38Z") == "2024-10-07T00:00:00Z"
    assert floor.build_cutoff("3.13", "2025-01-01T00:00:00Z") is None  # newer than the interpreter already
    # no cut-off (the task's date did not resolve): the build tools still get the floor and its caps
    assert floor.build_cutoff("3.11", None) == "2022-10-24T00:00:00Z"
    assert floor.build_cutoff("3.99", "2019-04-23T15:58:38Z") is None  # unknown series: left as it was


def test_hold_constraints_pin_the_first_pass_except_the_build_requirements():
    inputs = (LockInput("setuptools; python_version != '3.3'", "build-system"), LockInput("wheel", "build-system"),
              LockInput("six", "requirements-dev.txt"))
    build, rest = floor.split_build(inputs)
    assert [i.requirement for i in rest] == ["six"]
    assert floor.build_names(build) == frozenset({"setuptools", "wheel"})
    assert floor.hold_constraints(FIRST_PASS, floor.build_names(build)) == "hypothesis==4.57.1\nsix==1.12.0\n"
    assert floor.locked_names(FIRST_PASS) == frozenset({"hypothesis", "setuptools", "six"})


def test_the_late_prefixes_move_the_test_runner_and_its_plugins_to_the_later_pass():
    inputs = (LockInput("setuptools", "build-system"), LockInput("pytest>=3", "requirements-dev.txt"),
              LockInput("pytest-cov", "pytest addopts"), LockInput("six", "requirements-dev.txt"))
    late, rest = floor.split_build(inputs, floor.RUNNER)
    assert floor.build_names(late) == frozenset({"setuptools", "pytest", "pytest-cov"})
    assert rest == (LockInput("six", "requirements-dev.txt"),)
    assert floor.build_names(floor.split_build(inputs)[0]) == frozenset({"setuptools"})


def test_setuptools_is_kept_below_the_release_that_imports_the_environments_packaging():
    assert floor.backend_caps(frozenset({"setuptools", "wheel"})) == ("setuptools<71",)
    assert floor.backend_caps(frozenset({"hatchling"})) == ()


def test_the_later_pass_names_late_requirements_without_the_projects_pins():
    inputs = (LockInput("pytest==7.0.1", "requirements/tests.txt"), LockInput("pluggy==1.0.0", "requirements/tests.txt"),
              LockInput("six==1.16.0", "requirements/tests.txt"))
    late, _ = floor.split_build(inputs, floor.RUNNER)
    closure = frozenset({"pluggy", "iniconfig"})  # what the later pytest pulls in
    assert floor.relaxed(inputs, floor.build_names(late) | closure) == ("pytest", "pluggy", "six==1.16.0")


def test_everything_moves_every_input_to_the_later_pass_and_the_header_says_so():
    inputs = (LockInput("setuptools", "build-system"), LockInput("six==1.14.0", "install_requires"),
              LockInput("pytest>=3.0", "requirements-dev.txt"))
    build, rest = floor.split_build(inputs, floor.EVERYTHING)
    assert (build, rest) == (inputs, ())
    assert floor.relaxed(inputs, floor.build_names(build)) == ("setuptools", "six", "pytest")
    assert floor.floor_note(build, floor.EVERYTHING, "2022-10-24T00:00:00Z", "3.11") == (
        "Every requirement and what it pulls in from files uploaded before 2022-10-24T00:00:00Z, "
        "when Python 3.11 was released.")
    runner_only = floor.split_build(inputs, floor.RUNNER)[0]
    assert floor.floor_note(runner_only, floor.RUNNER, "2024-10-07T00:00:00Z", "3.13").startswith(
        "pytest, setuptools and their requirements from")


def test_a_late_package_the_project_does_not_name_joins_the_later_pass():
    inputs = (LockInput("setuptools", "build-system"), LockInput("cryptography>=3.4", "test extra"))
    late, rest = floor.split_build(inputs, ("cffi",))
    assert late == (LockInput("setuptools", "build-system"), LockInput("cffi", floor.LATE_ORIGIN))
    assert rest == (LockInput("cryptography>=3.4", "test extra"),)
    assert floor.split_build(inputs, ("cryptography",))[0] == (inputs[0], inputs[1])  # named: not added twice
    assert floor.split_build(inputs, floor.EVERYTHING)[0] == inputs


def test_late_from_header_reads_back_what_floor_note_wrote():
    late_from_header, EVERYTHING = floor.late_from_header, floor.EVERYTHING
    assert late_from_header("# " + floor.floor_note((), EVERYTHING, "2024-10-07T00:00:00Z", "3.13") + "\nsix==1\n") \
        == EVERYTHING
    line = "# regex, setuptools and their requirements from files uploaded before 2024-10-07T00:00:00Z, when"
    assert late_from_header(f"# Hash-pinned\n# Resolved by pip-compile\n{line}\nregex==1 \\\n") == ("regex",
                                                                                                   "setuptools")
    assert late_from_header("# Hash-pinned\n# Every requirement and what it pulls in from files uploaded before "
                            "2024-10-07T00:00:00Z, when\nsix==1\n") == EVERYTHING
    assert late_from_header("# Hash-pinned\nsix==1\n# setuptools and their requirements from files uploaded "
                            "before x\n") == ()
