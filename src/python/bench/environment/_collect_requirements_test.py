"""The collector's data-only parts (no build backend runs here; that path is exercised in the sandbox)."""

from bench.environment import _collect_requirements as collect
from bench.testing.environment import write_files


def _collector(tmp_path, project="demo"):
    collector = collect.Collector(tmp_path)
    collector.project = project
    return collector


def test_requirement_files_picks_root_requirements_and_test_or_dev_files(tmp_path):
    write_files(tmp_path, {
        "requirements.txt": "", "requirements-dev.txt": "", "test-requirements.txt": "", "docs.txt": "",
        "requirements-docs.txt": "", "requirements/tests.txt": "", "requirements/base.txt": "",
        "requirements/dev.txt": "",
    })
    names = [p.relative_to(tmp_path).as_posix() for p in collect.requirement_files(tmp_path)]
    assert names == ["requirements.txt", "test-requirements.txt", "requirements/tests.txt"]


def test_dev_requirement_files_are_read_only_when_no_file_names_tests(tmp_path):
    write_files(tmp_path, {"requirements-dev.txt": "", "requirements/dev.txt": "", "requirements/docs.txt": ""})
    names = [p.relative_to(tmp_path).as_posix() for p in collect.requirement_files(tmp_path)]
    assert names == ["requirements-dev.txt", "requirements/dev.txt"]


def test_plugins_named_by_addopts_are_added(tmp_path):
    write_files(tmp_path, {"setup.cfg": "[tool:pytest]\naddopts = --no-cov-on-fail --cov=semver -ra\n",
                           "tox.ini": "[pytest]\naddopts = -n auto\n"})
    collector = _collector(tmp_path)
    collect.addopts_plugins(tmp_path, {"tool": {"pytest": {"ini_options": {"addopts": ["--timeout=30"]}}}}, collector)
    assert sorted(collector.requirements) == [
        ("pytest-cov", "pytest addopts"), ("pytest-timeout", "pytest addopts"), ("pytest-xdist", "pytest addopts"),
    ]
    empty = _collector(tmp_path / "none")
    collect.addopts_plugins(tmp_path / "none", {}, empty)
    assert empty.requirements == []


def test_requirement_file_follows_includes_expands_self_extras_and_drops_what_cannot_be_locked(tmp_path):
    write_files(tmp_path, {
        "requirements-test.txt": (
            "# comment\n-r base.txt\n-e .[testing]\npluggy>=1 --hash=sha256:" + "0" * 64 + "\n"
            "--index-url https://example.org/simple\ngit+https://github.com/x/y.git#egg=y\n"
            "./vendor/thing\ntomli; python_version < '3.11'\nattrs ; python_version >= '3.8'  # inline\n"
            "demo[extra2]\n"
        ),
        "base.txt": "iniconfig\n-r ../outside.txt\n",
    })
    collector = _collector(tmp_path)
    collector_path = tmp_path / "requirements-test.txt"
    collect.read_requirement_file(collector_path, tmp_path, collector)
    assert sorted(collector.requirements) == [
        ("attrs", "requirements-test.txt"), ("iniconfig", "base.txt"), ("pluggy>=1", "requirements-test.txt"),
    ]
    assert collector.self_extras == {"testing", "extra2"}
    dropped = sorted(line for line, _ in collector.dropped)
    assert dropped == [
        "--index-url https://example.org/simple", "-r ../outside.txt", "./vendor/thing",
        "git+https://github.com/x/y.git#egg=y",
    ]


def test_dependency_groups_follow_include_group(tmp_path):
    pyproject = {"dependency-groups": {
        "Dev": ["ruff", {"include-group": "test"}], "test": ["pytest-mock"], "docs": ["sphinx"],
    }}
    collector = _collector(tmp_path)
    collect.dependency_groups(pyproject, collector)
    assert sorted(set(collector.requirements)) == [
        ("pytest-mock", "dependency-group:dev"), ("pytest-mock", "dependency-group:test"),
        ("ruff", "dependency-group:dev"),
    ]


def test_project_requirements_take_test_like_extras_and_extras_they_name(tmp_path):
    pyproject = {"project": {
        "name": "Demo", "dependencies": ["six"],
        "optional-dependencies": {"test": ["demo[speedups]", "hypothesis"], "speedups": ["ujson"], "docs": ["x"]},
    }}
    collector = collect.Collector(tmp_path)
    collector.project = "demo"
    dependencies, optional = collect.static_metadata(pyproject)

    def source(extras):
        items = [(r, "project.dependencies", frozenset({""})) for r in dependencies]
        for extra in sorted(extras & set(optional)):
            items += [(r, f"extra:{extra}", frozenset({""})) for r in optional[extra]]
        return items

    collect.add_project_requirements(source, collector)
    assert sorted(set(r for r, _ in collector.requirements)) == ["hypothesis", "six", "ujson"]


def test_markers_are_evaluated_for_the_requested_extras_and_removed(tmp_path):
    collector = _collector(tmp_path)
    collector.add('pytest-timeout ; extra == "test"', "metadata", frozenset({"", "test"}))
    collector.add('sphinx ; extra == "docs"', "metadata", frozenset({"", "test"}))
    collector.add('pywin32 ; sys_platform == "win32"', "metadata")
    assert collector.requirements == [("pytest-timeout", "metadata")]


def test_pytest_cov_is_locked_only_when_addopts_asks_for_coverage(tmp_path):
    without = _collector(tmp_path)
    collect.addopts_plugins(tmp_path, {"tool": {"pytest": {"ini_options": {"addopts": "-ra"}}}}, without)
    without.add("pytest-cov >= 2.0.0", "requirements-dev.txt")
    assert without.requirements == []
    assert without.dropped == [("pytest-cov >= 2.0.0",
                                "requirements-dev.txt: pytest plugin the project's addopts does not ask for")]
    wanted = _collector(tmp_path)
    collect.addopts_plugins(tmp_path, {"tool": {"pytest": {"ini_options": {"addopts": "--cov=demo"}}}}, wanted)
    wanted.add("pytest-cov >= 2.0.0", "requirements-dev.txt")
    assert wanted.requirements == [("pytest-cov", "pytest addopts"), ("pytest-cov>=2.0.0", "requirements-dev.txt")]


def test_pytest_cov_is_kept_when_the_tests_use_its_no_cover_marker(tmp_path):
    (tmp_path / "pkg" / "test").mkdir(parents=True)
    (tmp_path / "pkg" / "test" / "test_tz.py").write_text("import pytest\n\n@pytest.mark.no_cover\ndef test_x(): pass\n")
    (tmp_path / "pkg" / "core.py").write_text("# mark.no_cover in a non-test module does not count\n")
    kept = _collector(tmp_path)
    collect.addopts_plugins(tmp_path, {}, kept)
    kept.add("pytest-cov >= 2.0.0", "requirements-dev.txt")
    assert kept.requirements == [("pytest-cov>=2.0.0", "requirements-dev.txt")]  # the project's own, not added
    (tmp_path / "pkg" / "test" / "test_tz.py").write_text("# no_cover_ratio = mark.no_coverage\n")
    dropped = _collector(tmp_path)
    collect.addopts_plugins(tmp_path, {}, dropped)
    dropped.add("pytest-cov >= 2.0.0", "requirements-dev.txt")
    assert dropped.requirements == []


def test_a_warning_category_named_by_filterwarnings_keeps_its_package(tmp_path):
    pyproject = {"tool": {"pytest": {"ini_options": {"filterwarnings": [
        "error", "ignore:sys.monitoring isn't available:coverage.exceptions.CoverageWarning",
        "ignore::DeprecationWarning"]}}}}
    kept = _collector(tmp_path)
    collect.addopts_plugins(tmp_path, pyproject, kept)
    kept.add("pytest-cov", "test extra")
    kept.add("coverage[toml]>=7", "requirements/tests.txt")
    assert kept.requirements == [("coverage", "pytest filterwarnings"), ("pytest-cov", "test extra"),
                                 ("coverage[toml]>=7", "requirements/tests.txt")]
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\nfilterwarnings =\n    error\n    ignore::UserWarning\n")
    plain = _collector(tmp_path)
    collect.addopts_plugins(tmp_path, {}, plain)
    plain.add("coverage", "requirements-dev.txt")
    assert plain.requirements == []


def test_packaging_front_ends_are_not_locked_but_look_alike_names_are(tmp_path):
    collector = _collector(tmp_path)
    for name in ("build >= 0.3.0", "pep517 >= 0.5.0", "buildkit-helpers"):
        collector.add(name, "requirements-dev.txt")
    assert collector.requirements == [("buildkit-helpers", "requirements-dev.txt")]


def test_static_metadata_defers_to_the_backend_when_dependencies_are_dynamic():
    assert collect.static_metadata({"project": {"name": "x", "dynamic": ["dependencies"]}}) is None
    assert collect.static_metadata({"tool": {}}) is None
    assert collect.static_metadata({"project": {"name": "x"}}) == ([], {})


def test_poetry_dev_groups_are_taken_by_name_without_docs_and_lint_tools():
    pyproject = {"tool": {"poetry": {
        "dependencies": {"python": ">=3.8", "runtime-only": "^1"},
        "dev-dependencies": {"pytest": "^7.2.0", "PyYAML": "^6.0", "Sphinx": "^4.3.2", "pre-commit": "^2"},
        "group": {
            "test": {"dependencies": {"hypothesis": {"version": "^6", "extras": ["pytz"]}, "mypy": "*"}},
            "docs": {"dependencies": {"furo": "*", "docs-only": "*"}},
        },
    }}}
    collector = collect.Collector(None)
    collect.poetry_groups(pyproject, collector)
    assert sorted(collector.requirements) == [
        ("PyYAML", "poetry:dev-dependencies"), ("hypothesis[pytz]", "poetry:group.test"),
        ("pytest", "poetry:dev-dependencies"),
    ]
    assert sorted(name for name, _ in collector.dropped) == ["Sphinx", "mypy", "pre-commit"]


def test_docs_release_and_environment_tools_are_never_locked_from_any_source(tmp_path):
    collector = _collector(tmp_path)
    for text in ("pre-commit>=3.5,<5.0", "tox", "Sphinx>=7", "sphinx-rtd-theme", "mypy", "pytest"):
        collector.add(text, "extra:dev")
    assert sorted(collector.requirements) == [("mypy", "extra:dev"), ("pytest", "extra:dev")]
    assert len(collector.dropped) == 4


def test_lint_tools_of_the_dev_set_are_left_out_but_kept_when_tests_ask_for_them(tmp_path):
    collector = _collector(tmp_path)
    test_extras = frozenset({"", "test", "tests", "testing", "dev"})
    collector.add("mypy==0.812 ; extra == 'dev' or extra == 'lint'", "metadata", test_extras)
    collector.add("flake8==3.9.2", "requirements-dev.txt")
    collector.add("mypy ; extra == 'tests'", "metadata", test_extras)  # a suite that runs mypy names it here
    collector.add("black", "requirements/tests.txt")
    collector.add("pytest ; extra == 'dev'", "metadata", test_extras)
    assert collector.requirements == [("mypy", "metadata"), ("black", "requirements/tests.txt"),
                                      ("pytest", "metadata")]
    assert [origin for _, origin in collector.dropped] == [
        "metadata: lint or type checker of the dev set, not needed by tests",
        "requirements-dev.txt: lint or type checker of the dev set, not needed by tests"]
