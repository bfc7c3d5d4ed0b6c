"""One name per library project: the normalised PyPI distribution name.

A task's library is named by its kind (``bench.spec.kind_registry``): a PR task by its repository
(``pallets/jinja`` → ``jinja``), a mutation task by its sdist (``jinja2``). The same project can thus carry two
names. ``tasks/_projects.json`` maps each name that is not its project's distribution name to that name; the
pool's library count (``bench pool stats``) counts projects through it. Task ids, folders, records and selectors
keep the kind's name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable, Mapping

from bench.errors import SpecError

ALIASES_FILE = Path("tasks") / "_projects.json"


def normalise(name: str) -> str:
    """PEP 503: lower case, runs of ``-``, ``_`` and ``.`` as one ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def load_aliases(root: Path) -> dict[str, str]:
    """The checkout's alias table (name → distribution, both normalised); empty when it has none."""
    path = root / ALIASES_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        aliases = data["aliases"]
        if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
            raise TypeError("aliases must map names to names")
    except (ValueError, KeyError, TypeError) as error:
        raise SpecError(f"{path}: {error}", kind="invalid_projects", path=str(path)) from None
    return {normalise(name): normalise(project) for name, project in aliases.items()}


def project(library: str, aliases: Mapping[str, str]) -> str:
    """The project a library name belongs to."""
    name = normalise(library)
    return aliases.get(name, name)


def projects(libraries: Iterable[str], aliases: Mapping[str, str]) -> set[str]:
    return {project(library, aliases) for library in libraries}
