from __future__ import annotations

import json

import pytest

from bench.errors import SpecError
from bench.spec.projects import load_aliases, normalise, project, projects


def test_names_are_normalised_as_pypi_does_and_aliases_map_to_their_project(tmp_path):
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "_projects.json").write_text(json.dumps({"aliases": {"Python_Semver": "semver"}}))
    aliases = load_aliases(tmp_path)
    assert aliases == {"python-semver": "semver"}
    assert normalise("More.Itertools") == "more-itertools"
    assert project("python-semver", aliases) == project("semver", aliases) == "semver"
    assert projects(["jinja2", "Jinja2", "click"], aliases) == {"jinja2", "click"}


def test_a_checkout_without_the_table_has_no_aliases_and_a_broken_one_is_an_error(tmp_path):
    assert load_aliases(tmp_path) == {}
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "_projects.json").write_text(json.dumps({"aliases": ["jinja"]}))
    with pytest.raises(SpecError, match="_projects.json"):
        load_aliases(tmp_path)
