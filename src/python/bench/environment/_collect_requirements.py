"""Collect a repository's test requirements. A standalone script: it runs INSIDE the sandbox only.

It imports nothing from the harness: it is copied into the sandbox and run with the tool venv's interpreter
(the image's python3 plus pip-tools, ``build`` and ``packaging``), because reading ``setup.py`` or a dynamic
``pyproject.toml`` means running the repository's build backend, which is untrusted.

    python _collect_requirements.py OUT_JSON REPO_DIR [EXTRA_REQUIREMENT…]  ->  OUT_JSON:
    {"project": name or "", "requirements": [[req, origin], …], "dropped": [[line, reason], …]}

Requirements are returned without markers (each was evaluated for this interpreter) and without a reference
to the project itself (its own extras are expanded instead).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import tomllib
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

TEST_GROUPS = ("test", "tests", "testing", "dev")
NOT_FOR_TESTS = ("sphinx", "furo", "pre-commit", "tox", "nox", "twine", "mkdocs", "myst", "commitizen", "bump",
                 "towncrier", "check-manifest", "readme-renderer", "coverage", "codecov", "coveralls")  # prefixes
NOT_FOR_TESTS_EXACT = ("build", "pep517")  # packaging front ends (old pep517 pulls pytoml, which no longer builds)
# Plugins kept only when the project's pytest addopts asks for them: pytest-cov drags in a coverage release of
# the lock's date, which may not build on the image's Python, and the harness never measures coverage.
ONLY_IF_ADDOPTS = ("pytest-cov",)
REQUIREMENT_DIRS = ("requirements", "reqs", "requirements.d")
_MAX_INCLUDE_DEPTH = 8


def _dev_file(origin: str) -> bool:
    """A requirement file for development rather than tests (``requirements-dev.txt``, ``requirements/dev.txt``)."""
    name = origin.rsplit("/", 1)[-1].lower()
    return name.endswith(".txt") and "dev" in name and "test" not in name


def _left_out(name: str, holds: list[str], origin: str) -> str | None:
    """Why a requirement the tests do not need is not locked (None: it is locked)."""
    if name.startswith(NOT_FOR_TESTS) or name in NOT_FOR_TESTS_EXACT:
        return "docs, release or environment tool, not needed by tests"
    if name.startswith(LINT) and (holds == ["dev"] or _dev_file(origin)):
        return "lint or type checker of the dev set, not needed by tests"
    if name in ONLY_IF_ADDOPTS:
        return "pytest plugin the project's addopts does not ask for"
    return None


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class Collector:
    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.project = ""
        self.requirements: list[tuple[str, str]] = []
        self.dropped: list[tuple[str, str]] = []
        self.self_extras: set[str] = set()
        self.config_needs: set[str] = set()  # what the pytest configuration needs to start: never left out

    def add(self, text: str, origin: str, extras: frozenset[str] = frozenset({""})) -> None:
        """Add one PEP 508 requirement if its marker holds here for one of ``extras``; expand self-references."""
        try:
            requirement = Requirement(text)
        except InvalidRequirement as error:
            self.dropped.append((text, f"{origin}: unparsable ({error})"))
            return
        marker = requirement.marker
        holds = sorted(extra for extra in extras if marker is None or marker.evaluate({"extra": extra}))
        if not holds:
            return
        if requirement.url:
            self.dropped.append((text, f"{origin}: direct URL references cannot be locked from the index"))
            return
        if self.project and normalise(requirement.name) == self.project:
            self.self_extras.update(normalise(extra) for extra in requirement.extras)
            return
        name = normalise(requirement.name)
        reason = None if name in self.config_needs else _left_out(name, holds, origin)
        if reason:
            self.dropped.append((text, f"{origin}: {reason}"))
            return
        requirement.marker = None
        self.requirements.append((str(requirement), origin))


def load_pyproject(repo: Path) -> dict:
    path = repo / "pyproject.toml"
    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        return tomllib.load(handle)


def is_buildable(repo: Path, pyproject: dict) -> bool:
    return (repo / "setup.py").is_file() or (repo / "setup.cfg").is_file() or bool(
        pyproject.get("build-system") or pyproject.get("project")
    )


def static_metadata(pyproject: dict) -> tuple[list[str], dict[str, list[str]]] | None:
    """(dependencies, optional dependencies) when pyproject declares both statically, else None."""
    project = pyproject.get("project")
    if not isinstance(project, dict) or "name" not in project:
        return None
    dynamic = set(project.get("dynamic", ()))
    if {"dependencies", "optional-dependencies"} & dynamic:
        return None
    optional = {normalise(k): list(v) for k, v in project.get("optional-dependencies", {}).items()}
    return list(project.get("dependencies", [])), optional


def backend_metadata(repo: Path, collector: Collector) -> tuple[list[str], list[str]]:
    """Ask the build backend: (Requires-Dist lines, build requirements for wheel and editable builds)."""
    # `build` lives in the sandbox's tool venv, not in the harness's environment.
    from build import ProjectBuilder  # pants: no-infer-dep
    from build.env import DefaultIsolatedEnv  # pants: no-infer-dep

    with DefaultIsolatedEnv() as env, tempfile.TemporaryDirectory() as out:
        builder = ProjectBuilder.from_isolated_env(env, repo)
        build_requires = set(builder.build_system_requires)
        env.install(builder.build_system_requires)
        for target in ("wheel", "editable"):
            try:
                build_requires.update(builder.get_requires_for_build(target))
            except Exception as error:  # an old backend without the editable hooks
                collector.dropped.append((target, f"build backend: get_requires_for_build failed: {error}"))
        if build_requires - set(builder.build_system_requires):
            env.install(build_requires)
        metadata_dir = Path(builder.metadata_path(out))
        metadata = (metadata_dir / "METADATA").read_text(encoding="utf-8")
    from email.parser import HeaderParser

    message = HeaderParser().parsestr(metadata)
    collector.project = normalise(message.get("Name", ""))
    return list(message.get_all("Requires-Dist") or []), sorted(build_requires)


def project_source(repo: Path, pyproject: dict, collector: Collector):
    """A function extras -> [(requirement, origin, extras to evaluate markers with)], and the build requires."""
    project = pyproject.get("project") if isinstance(pyproject.get("project"), dict) else {}
    if project.get("name"):
        collector.project = normalise(project["name"])
    static = static_metadata(pyproject)
    if static is None:
        requires_dist, build_requires = backend_metadata(repo, collector)

        def from_metadata(extras: frozenset[str]):
            return [(r, "metadata", frozenset({"", *extras})) for r in requires_dist]

        return from_metadata, build_requires
    dependencies, optional = static

    def from_pyproject(extras: frozenset[str]):
        items = [(r, "project.dependencies", frozenset({""})) for r in dependencies]
        for extra in sorted(extras & set(optional)):
            items += [(r, f"extra:{extra}", frozenset({""})) for r in optional[extra]]
        return items

    return from_pyproject, backend_build_requires(repo, pyproject, collector)


def backend_build_requires(repo: Path, pyproject: dict, collector: Collector) -> list[str]:
    """Build requirements when the metadata is static: still ask the backend for its dynamic additions."""
    try:
        return backend_metadata(repo, Collector(repo))[1]
    except Exception as error:
        collector.dropped.append(("build-system", f"build backend failed, static requires only: {error}"))
        return list(pyproject.get("build-system", {}).get("requires", ["setuptools>=40.8.0"]))


def add_project_requirements(source, collector: Collector) -> None:
    """Add the project's dependencies with the test-like extras, following extras that name the project."""
    applied: frozenset[str] = frozenset()
    while True:
        extras = frozenset(TEST_GROUPS) | frozenset(collector.self_extras)
        if extras == applied:
            return
        applied = extras
        for requirement, origin, marker_extras in source(extras):
            collector.add(requirement, origin, marker_extras)


def dependency_groups(pyproject: dict, collector: Collector) -> None:
    """PEP 735 groups named like test groups, with ``{include-group = …}`` followed."""
    groups = {normalise(k): v for k, v in pyproject.get("dependency-groups", {}).items()}

    def expand(name: str, seen: tuple[str, ...]) -> None:
        for item in groups.get(name, []):
            if isinstance(item, dict) and "include-group" in item:
                included = normalise(item["include-group"])
                if included not in seen:
                    expand(included, (*seen, included))
            elif isinstance(item, str):
                collector.add(item, f"dependency-group:{seen[0]}")

    for group in TEST_GROUPS:
        if group in groups:
            expand(group, (group,))


# Docs, lint, type-check and release tools: a dev group lists them beside the test tools, but no test needs
# them, and some (Sphinx themes, pre-commit's pinned PyYAML, an old mypy's typed_ast) are heavy or no longer
# install. Lint and type checkers are left out of dev sets only (Poetry dev groups, a `dev` extra, dev
# requirement files): a test suite may run mypy (pytest-mypy-plugins), and then names it in a test extra.
LINT = ("mypy", "ruff", "black", "flake8", "isort", "pylint", "types-")
TOOLING = NOT_FOR_TESTS + LINT


def poetry_groups(pyproject: dict, collector: Collector) -> None:
    """Poetry's legacy ``dev-dependencies`` and its test-like ``group.<name>.dependencies``, by name (and
    extras) only: Poetry's caret constraints are not PEP 508, and the resolver's cutoff picks the versions."""
    poetry = pyproject.get("tool", {}).get("poetry", {})
    tables = [("dev-dependencies", poetry.get("dev-dependencies", {}))]
    tables += [(f"group.{name}", group.get("dependencies", {})) for name, group in poetry.get("group", {}).items()
               if normalise(name) in TEST_GROUPS and isinstance(group, dict)]
    for origin, table in tables:
        for name, constraint in table.items():
            if normalise(name) == "python":
                continue
            if normalise(name).startswith(TOOLING):
                collector.dropped.append((name, f"poetry {origin}: docs or lint tool"))
                continue
            extras = constraint.get("extras", []) if isinstance(constraint, dict) else []
            collector.add(f"{name}[{','.join(extras)}]" if extras else name, f"poetry:{origin}")


def requirement_files(repo: Path) -> list[Path]:
    """Root requirements.txt and the requirement files for tests: files naming tests when there are any (at the
    root, then in the requirement dirs), else files naming dev — a dev file usually pins everything a
    maintainer uses (docs, linters, pre-commit), some of it no longer installable."""
    found = [repo / "requirements.txt"] if (repo / "requirements.txt").is_file() else []
    candidates = [path for path in sorted(repo.glob("*.txt")) if "req" in path.name.lower()]
    for folder in REQUIREMENT_DIRS:
        candidates += sorted((repo / folder).glob("*.txt")) if (repo / folder).is_dir() else []
    tests = [path for path in candidates if "test" in path.name.lower()]
    return found + (tests or [path for path in candidates if "dev" in path.name.lower()])


# pytest options in a project's addopts that only a plugin understands: without it pytest refuses to start.
ADDOPTS_PLUGINS = (("--cov", "pytest-cov"), ("--no-cov", "pytest-cov"), ("--numprocesses", "pytest-xdist"),
                   ("-n", "pytest-xdist"), ("--timeout", "pytest-timeout"), ("--benchmark", "pytest-benchmark"))


def addopts_plugins(repo: Path, pyproject: dict, collector: Collector) -> None:
    """Add what the project's pytest configuration needs to start (read as data, from every config file): the
    plugins its ``addopts`` use and the packages of the warning categories its ``filterwarnings`` name; and
    keep the plugins whose markers its tests use, when the project lists them."""
    settings = pytest_settings(repo, pyproject, ("addopts", "filterwarnings"))
    words = " ".join(settings["addopts"])
    words = words.replace("[", " ").replace("]", " ").replace(",", " ").replace("'", " ").split()
    needed = {plugin for option, plugin in ADDOPTS_PLUGINS
              if any(word == option or word.startswith((option + "=", option + "-")) for word in words)}
    warned = warning_packages(settings["filterwarnings"])
    collector.config_needs = needed | marker_plugins(repo) | {n for names in warned.values() for n in names}
    for plugin in sorted(needed):
        collector.add(plugin, "pytest addopts")
    for module in sorted(warned):
        collector.add(module, "pytest filterwarnings")


def pytest_settings(repo: Path, pyproject: dict, keys: tuple[str, ...]) -> dict[str, list[str]]:
    """{key: its values in every config file pytest might read} for pytest ini options (read as data)."""
    import configparser

    options = pyproject.get("tool", {}).get("pytest", {}).get("ini_options", {})
    found = {key: _as_texts(options.get(key, "")) for key in keys}
    for name, section in (("pytest.ini", "pytest"), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string((repo / name).read_text(encoding="utf-8", errors="replace"))
        except (OSError, configparser.Error):
            continue
        for key in keys:
            found[key].append(parser.get(section, key, fallback=""))
    return found


def _as_texts(value) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


# Packages whose warning categories a project's `filterwarnings` may name: pytest imports the category when
# it reads the option and refuses to start without it. Only those a rule above would otherwise leave out.
WARNING_PACKAGES = {"coverage": ("coverage", "pytest-cov")}


def warning_packages(filters: list[str]) -> dict[str, tuple[str, ...]]:
    """{module: the requirement names to keep} for the warning categories the filters name."""
    found = {}
    for line in "\n".join(filters).splitlines():
        fields = line.strip().split(":")
        category = fields[2].strip() if len(fields) > 2 else ""
        module = category.split(".", 1)[0]
        if "." in category and module in WARNING_PACKAGES:
            found[module] = WARNING_PACKAGES[module]
    return found


# Markers a plugin registers: a suite that uses one needs the plugin, or pytest warns of an unknown mark (an
# error under --strict-markers or `filterwarnings = error`). Only those an ONLY_IF_ADDOPTS plugin registers.
MARKER_PLUGINS = ((re.compile(rb"\bmark\.no_cover\b"), "pytest-cov"),)
_MAX_SCANNED_TEST_FILES = 2000


def marker_plugins(repo: Path) -> set[str]:
    """The plugins whose markers the repository's test files or conftests use."""
    found: set[str] = set()
    names = sorted(p for p in repo.rglob("*.py") if p.name == "conftest.py" or p.name.startswith("test")
                   or p.name.endswith("_test.py"))
    for path in names[:_MAX_SCANNED_TEST_FILES]:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        found |= {plugin for pattern, plugin in MARKER_PLUGINS if pattern.search(data)}
    return found


def read_requirement_file(path: Path, repo: Path, collector: Collector, depth: int = 0) -> None:
    origin = path.relative_to(repo).as_posix()
    text = path.read_text(encoding="utf-8", errors="replace").replace("\\\n", " ")
    for raw in text.splitlines():
        line = re.split(r"(^|\s)#", raw, maxsplit=1)[0].strip()
        if not line:
            continue
        include = re.match(r"^(-r|--requirement)[\s=]+(\S+)", line)
        if include:
            target = (path.parent / include.group(2)).resolve()
            if depth < _MAX_INCLUDE_DEPTH and target.is_file() and target.is_relative_to(repo.resolve()):
                read_requirement_file(target, repo.resolve(), collector, depth + 1)
            else:
                collector.dropped.append((line, f"{origin}: include outside the repository or missing"))
            continue
        editable = re.match(r"^(-e|--editable)[\s=]+(\S+)", line)
        target = editable.group(2) if editable else line
        local = re.match(r"^\.(/)?(\[([^\]]*)\])?$", target)
        if local:
            collector.self_extras.update(normalise(e) for e in (local.group(3) or "").split(",") if e.strip())
            continue
        if line.startswith("-") or editable:
            collector.dropped.append((line, f"{origin}: option or editable line ignored"))
            continue
        requirement = re.sub(r"\s--hash[=\s]\S+", "", line).strip()
        if requirement.startswith((".", "/")) or "://" in requirement.split(";")[0] and "@" not in requirement:
            collector.dropped.append((line, f"{origin}: local path or URL ignored"))
            continue
        collector.add(requirement, origin)


def collect(repo: Path, extra: list[str]) -> dict:
    collector = Collector(repo)
    pyproject = load_pyproject(repo)
    addopts_plugins(repo, pyproject, collector)  # first: it decides which optional plugins the others may add
    source = None
    if is_buildable(repo, pyproject):
        source, build_requires = project_source(repo, pyproject, collector)
        for requirement in build_requires:
            collector.add(requirement, "build-system")
    dependency_groups(pyproject, collector)
    poetry_groups(pyproject, collector)
    for path in requirement_files(repo):
        read_requirement_file(path, repo, collector)
    if source is not None:
        add_project_requirements(source, collector)
    for requirement in extra:
        collector.add(requirement, "harness")
    unique = sorted(set(collector.requirements))
    return {"project": collector.project, "requirements": unique, "dropped": sorted(set(collector.dropped))}


if __name__ == "__main__":
    # A file, not stdout: the build backend and pip print to stdout while they work.
    Path(sys.argv[1]).write_text(json.dumps(collect(Path(sys.argv[2]), sys.argv[3:]), sort_keys=True))
