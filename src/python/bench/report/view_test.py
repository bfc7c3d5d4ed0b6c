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


def _page_of(tmp_path, condition: str) -> str:
    record = UnitRecord.from_json({**RECORD.to_json(), "condition": condition})
    path = detail_path(tmp_path, "lib-1", "m/x", condition, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"turns": [{"turn": 1, "outcome": "model_miss", "diff": "",
                                           "feedback": "### t.py::test_a (failed)\nE assert 1 == 2"}]}))
    write_view([record], tmp_path, tmp_path / "view")
    return (tmp_path / "view" / "tasks" / "lib-1.html").read_text()


def test_a_count_only_unit_says_its_model_did_not_see_the_test_output_shown(tmp_path):
    page = _page_of(tmp_path, "count-only")
    note = ('<p class="not-shown">The model did not see this output: under the count-only condition it was told '
            "only how many tests still fail, of how many (or that its edit was rejected as tampering).</p>")
    assert "<p>What the tests said (the full output):</p>\n" + note + "\n<pre>### t.py::test_a (failed)" in page


def test_a_full_feedback_unit_shows_the_output_without_that_note(tmp_path):
    page = _page_of(tmp_path, "full")
    assert "### t.py::test_a (failed)" in page and "did not see" not in page


def test_an_unusable_edits_message_carries_no_such_note_it_is_what_every_condition_is_told(tmp_path):
    record = UnitRecord.from_json({**RECORD.to_json(), "condition": "count-only",
                                   "turns": [{"turn": 1, "outcome": "invalid_edit", "signature": ""}]})
    path = detail_path(tmp_path, "lib-1", "m/x", "count-only", 0)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"turns": [{"turn": 1, "outcome": "invalid_edit", "diff": "",
                                           "feedback": "Your reply could not be applied (no_edits)."}]}))
    write_view([record], tmp_path, tmp_path / "view")
    page = (tmp_path / "view" / "tasks" / "lib-1.html").read_text()
    assert "Your reply could not be applied (no_edits)." in page and "did not see" not in page
