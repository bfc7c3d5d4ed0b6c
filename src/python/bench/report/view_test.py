from __future__ import annotations

import json

from bench.loop.records import UnitRecord
from bench.report.view import write_view
from bench.store.records import detail_path

RECORD = UnitRecord.from_json({
    "task_id": "lib-1", "model": "m/x", "condition": "full", "sample": 0, "kind": "loop", "class": "STALLED",
    "class_reason": "same failure twice", "resolved": False, "budget": 3,
    "turns": [{"turn": 1, "outcome": "model_miss", "signature": "abc123", "failing": ["t.py::test_a"]}]})


def test_task_page_quotes_the_units_diff_and_messages_escaped(tmp_path):
    path = detail_path(tmp_path, "lib-1", "m/x", "full", 0)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"turns": [{"turn": 1, "outcome": "model_miss", "diff": "-a = 1\n+a = <2>\n",
                                           "feedback": "### t.py::test_a (failed)\nE assert 1 == 2"}]}))
    index = write_view([RECORD], tmp_path, tmp_path / "view")
    page = (tmp_path / "view" / "tasks" / "lib-1.html").read_text()
    assert '<span class="add">+a = &lt;2&gt;</span>' in page
    assert '<span class="del">-a = 1</span>' in page
    assert "### t.py::test_a (failed)\nE assert 1 == 2" in page
    assert "signature <code>abc123</code>" in page and "STALLED" in page
    assert 'href="tasks/lib-1.html"' in index.read_text()


def test_without_units_the_page_shows_the_records_and_says_so(tmp_path):
    write_view([RECORD], tmp_path, tmp_path / "view")
    page = (tmp_path / "view" / "tasks" / "lib-1.html").read_text()
    assert "<code>t.py::test_a</code>" in page
    assert "No diffs or test messages were kept" in page
