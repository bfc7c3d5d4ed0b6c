"""Admission refuses a mutation candidate whose mutant adds an anomaly to its file, before any run."""

from __future__ import annotations

import json

from bench.gate import giveaway_refusal
from bench.spec.load import spec_from_document
from bench.testing.support import checkout_root

RELEASED = b"def assert_a(self):\n    return getattr(self, _a)()\n\n\ndef assert_b(self):\n    return getattr(self, _b)()\n\n\n" \
           b"def assert_c(self):\n    return getattr(self, _c)()\n\n\ndef pair(a, b):\n    p, q = a - 1, b\n" \
           b"    return combine(p, q)\n"


def _candidate(task_id: str, old: bytes, new: str) -> dict:
    template = json.loads(next((checkout_root() / "tasks" / "_retired" / "mutation-six").glob("*.json")).read_text())
    start = RELEASED.index(old)
    site = dict(template["mutation"], file="six.py", start=start, end=start + len(old), replacement=new)
    return dict(template, task_id=task_id, mutation=site)


def test_a_mutant_against_its_files_own_order_is_dropped_before_any_run(tmp_path, monkeypatch):
    monkeypatch.setattr(giveaway_refusal, "_released_files", lambda todo: {"six.py": RELEASED})
    todo = [(doc, spec_from_document(doc)) for doc in (
        _candidate("mutation.six.1.16.0.00000001", b"self, _c", "_c, self"),  # two twins pass self first
        _candidate("mutation.six.1.16.0.00000002", b"p, q)", "q, p)"))]  # the file's own helper: ordinary
    kept, refused = giveaway_refusal.refuse_giveaways(todo, tmp_path)
    assert [spec.task_id for _, spec in kept] == ["mutation.six.1.16.0.00000002"]
    assert [(a.task_id, a.admitted, a.reason) for a in refused] == [
        ("mutation.six.1.16.0.00000001", False, "giveaway:arguments_in_the_reverse_of_the_file_s_own_order")]
    dropped = json.loads((tmp_path / "tasks" / "_dropped" / "mutation.six.1.16.0.00000001.json").read_text())
    assert dropped["reason"] == "giveaway:arguments_in_the_reverse_of_the_file_s_own_order"
