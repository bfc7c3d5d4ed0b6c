"""The in-place runtime's protocol, run directly on a small project of this test's own (no sandbox: nothing
untrusted runs here): a site's inputs are answered by one forked child, in order, each call meeting what the
earlier ones left; a child that dies in the middle of a site leaves the rest answered by the parent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.testing.support import child_env

RUNTIME = Path(__file__).with_name("_probe_runtime.py")
BOX = '''
import os
import random


class Box:
    def __init__(self):
        self.items = []

    def put(self, thing, count=1):
        if count == -1:
            os._exit(7)  # dies in the middle of a call: the site's child is gone
        while count == -2:
            pass  # never returns: the call's own time runs out
        if count == -3:
            self.items.append(random.random())  # what the box holds from here on was drawn
            count = 0
        self.items.extend([thing] * count)
        return [len(self.items), os.getpid()]
'''
TEST = '''
import threading

from box import Box


class Thing:  # holds what cannot be written: the call cannot be replayed on its own
    def __init__(self):
        self.lock = threading.Lock()


def test_put():
    box = Box()
    assert box.put(Thing(), 2)[0] == 2
    assert box.put(Thing(), 1)[0] == 3
'''


def _run(tmp_path: Path, mode: str, config: dict) -> list:
    (tmp_path / "config.json").write_text(json.dumps(config))
    out = tmp_path / f"{mode}.out"
    out.write_bytes(b"")
    channel = {"record": "BENCH_CHANNEL_PROBES", "inplace": "BENCH_CHANNEL_OUTPUTS"}[mode]
    env = child_env({"BENCH_CHANNEL_PROBECONFIG": str(tmp_path / "config.json"), channel: str(out),
                     "PYTHONDONTWRITEBYTECODE": "1"})
    subprocess.run([sys.executable, str(RUNTIME), mode, "-q", "-p", "no:cacheprovider", "test_box.py"],
                   cwd=tmp_path, env=env, capture_output=True, timeout=120)
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


@pytest.fixture
def sites(tmp_path):
    (tmp_path / "box.py").write_text(BOX)
    (tmp_path / "test_box.py").write_text(TEST)
    config = {"targets": [["box.py", "Box.put"]], "per_target": 10, "sites_per_target": 10}
    recorded = [line for line in _run(tmp_path, "record", config) if isinstance(line, list) and line[:1] == ["site"]]
    assert len(recorded) == 2, recorded  # the two calls of test_put, each named as a site
    return recorded


def _in_place(tmp_path, site, counts, seconds=5.0) -> dict:
    index, test, mark, occurrence = site[1:5]
    inputs = [[number, ["l", [["~"], ["~"], ["i", str(count)]]], ["d", []]] for number, count in enumerate(counts)]
    config = {"targets": [["box.py", "Box.put"]], "seconds_per_call": seconds,
              "sites": [[index, test, mark, occurrence, inputs]]}
    return {number: answer for number, answer in _run(tmp_path, "inplace", config)}


def _returned(answer) -> list[int]:
    assert answer[0] == "return", answer
    return [int(item[1]) for item in answer[1][1]]


def test_a_sites_inputs_are_answered_in_one_child_each_meeting_what_the_earlier_left(tmp_path, sites):
    answers = _in_place(tmp_path, sites[0], [1, 2, 0])
    lengths = [_returned(answers[n])[0] for n in range(3)]
    pids = {_returned(answers[n])[1] for n in range(3)}
    assert lengths == [1, 3, 3]  # the box starts empty at the first call; each call adds to what the last left
    assert len(pids) == 1 and os.getpid() not in pids  # one forked child answered all three


def test_a_child_that_dies_mid_site_leaves_the_call_crashed_and_the_rest_unanswered(tmp_path, sites):
    answers = _in_place(tmp_path, sites[1], [1, -1, 1, 1])
    assert _returned(answers[0])[0] == 3  # the second call of the test: two things already in the box
    assert answers[1] == ["crashed"] and answers[2] == answers[3] == ["unanswered"]


def test_a_call_that_runs_out_of_time_ends_its_sites_answers(tmp_path, sites):
    """What a call cut off by its timer left behind is not the same twice: the inputs after it are not answered."""
    answers = _in_place(tmp_path, sites[0], [1, -2, 1], seconds=0.5)
    assert _returned(answers[0])[0] == 1
    assert answers[1] == ["timeout"] and answers[2] == ["unanswered"]


def test_after_a_call_that_draws_every_answer_of_the_site_is_marked_as_drawn(tmp_path, sites):
    """The box holds a drawn value after the second call: the third call's answer carries it, so two runs of the
    reference can agree on it by chance (prettytable's ``set_style(RANDOM)`` before ``set_style(MARKDOWN)`` at
    one site was a false alarm of this kind). Marked, the reference's answer is never kept."""
    answers = _in_place(tmp_path, sites[0], [1, -3, 1])
    assert len(answers[0]) == 4  # before any draw: a plain answer
    assert answers[1][0] == "return" and answers[1][4:] == ["random"]  # the call that drew
    assert answers[2][0] == "return" and answers[2][4:] == ["random"]  # drew nothing itself, met what was drawn


REGISTRY = '''
def double(x):
    return 2 * x


FILTERS = {"double": double}  # filled while the module runs, before the recorder wraps ``double``
CHAIN = [double]
'''
REGISTRY_TEST = '''
from registry import CHAIN, FILTERS


def test_box():
    assert FILTERS["double"](3) == 6
    assert CHAIN[0](4) == 8
'''


def test_calls_through_a_registry_of_the_module_are_recorded(tmp_path):
    """jinja2 calls its filters through ``FILTERS``, a dict filled before the recorder wraps them: the wrapped
    function is put there too, or no call of the tests is ever seen."""
    (tmp_path / "registry.py").write_text(REGISTRY)
    (tmp_path / "test_box.py").write_text(REGISTRY_TEST)
    config = {"targets": [["registry.py", "double"]], "per_target": 10, "sites_per_target": 10}
    lines = _run(tmp_path, "record", config)
    calls = sorted(int(line[1][1][0][1]) for line in lines if isinstance(line, list) and line[0] == 0)
    assert calls == [3, 4]
    assert lines[-1]["counts"]["0"][:2] == [2, 0]



NESTED = '''
from collections import namedtuple
from functools import partial


def row(separator, cells):
    return separator.join(cells)


def unused(x):
    return x


Format = namedtuple("Format", ["datarow", "headerrow"])
FORMATS = {"wiki": Format(datarow=partial(row, "|"), headerrow=partial(row, separator="!"))}  # before any wrapping
'''
NESTED_TEST = '''
from nested import FORMATS


def test_rows():
    assert FORMATS["wiki"].datarow(["a", "b"]) == "a|b"
    assert FORMATS["wiki"].headerrow(cells=["c"]) == "c"
'''


def test_calls_through_a_partial_in_a_named_tuple_in_a_registry_are_recorded(tmp_path):
    """tabulate keeps its row formatters as ``partial(_mediawiki_row_with_attrs, "|")`` inside the named tuples of
    its ``_table_formats``, made before the recorder wraps the function: no call was seen, and the task had no
    probes ("the tests never imported a module holding a target", which was not so). The partials are pointed
    at the wrapped function; a target the tests import but never call is named with its module all the same."""
    (tmp_path / "nested.py").write_text(NESTED)
    (tmp_path / "test_box.py").write_text(NESTED_TEST)
    config = {"targets": [["nested.py", "row"], ["nested.py", "unused"]], "per_target": 10, "sites_per_target": 10}
    lines = _run(tmp_path, "record", config)
    calls = [line[1:] for line in lines if isinstance(line, list) and line[0] == 0]
    assert [json.dumps(c[0]) for c in calls] == [
        json.dumps(["l", [["s", "|"], ["l", [["s", "a"], ["s", "b"]]]]]), json.dumps(["l", []])]
    assert dict((k[1], v) for k, v in calls[1][1][1]) == {"separator": ["s", "!"], "cells": ["l", [["s", "c"]]]}
    assert lines[-1]["counts"]["0"][:3] == [2, 0, "nested"]
    assert lines[-1]["counts"]["1"][:3] == [0, 0, "nested"]


NAMED = '''
def label(path):
    return path.upper()
'''
NAMED_TEST = '''
import tempfile

from named import label


def test_label():
    with tempfile.NamedTemporaryFile() as handle:
        assert label(handle.name) == handle.name.upper()
'''


def test_a_temp_files_name_is_recorded_alike_in_every_recording(tmp_path):
    import tempfile

    # tempfile's names come from os.urandom: a recorded argument holding one made pyflakes', click's and pyasn1's
    # probe sets differ at every build.
    (tmp_path / "named.py").write_text(NAMED)
    (tmp_path / "test_named.py").write_text(NAMED_TEST)
    (tmp_path / "config.json").write_text(json.dumps({"targets": [["named.py", "label"]], "per_target": 10}))
    recordings = []
    for attempt in range(2):
        out = tmp_path / f"record{attempt}.out"
        out.write_bytes(b"")
        env = child_env({"BENCH_CHANNEL_PROBECONFIG": str(tmp_path / "config.json"), "BENCH_CHANNEL_PROBES": str(out),
                         "PYTHONDONTWRITEBYTECODE": "1"})
        subprocess.run([sys.executable, str(RUNTIME), "record", "-q", "-p", "no:cacheprovider", "test_named.py"],
                       cwd=tmp_path, env=env, capture_output=True, timeout=120)
        recordings.append(out.read_text())
    assert tempfile.gettempdir() in recordings[0], recordings[0]  # the name was recorded
    assert recordings[0] == recordings[1]


def test_a_written_site_carries_the_own_attributes_of_its_live_arguments(sites):
    """Sites are named with their live arguments bare (the mark holds only their types) and written with what
    can be written of them: a sweep turns over an attribute of ``self`` from there."""
    first = sites[0]
    assert first[5] == ["l", [["~", [[["s", "items"], ["l", []]]]], ["~"], ["i", "2"]]]


LEDGER = '''
class Ledger:
    def __init__(self):
        # too large to write: each try at one of them walks the codec's whole budget
        self.tables = [{n: n for n in range(5000)} for _ in range(12)]
        for number, table in enumerate(self.tables):
            setattr(self, f"table{number}", table)

    def get(self, key):
        return self.tables[0][key]
'''
LEDGER_TEST = '''
import pytest

from ledger import Ledger


@pytest.mark.parametrize("round_", range(30))
def test_box(round_):
    ledger = Ledger()
    assert sum(ledger.get(n) for n in range(200)) == sum(range(200))
'''


def test_a_target_called_far_past_its_cap_costs_a_count_not_a_try_at_writing_it(tmp_path):
    """pint's registry methods are called hundreds of times in each of a thousand tests, with a ``self`` too
    large to write. Each call past the recorder's cap was still named as a site (its live arguments' own
    attributes tried one by one), and the recording ran out of its five minutes, so its set said the tests
    never imported the module. Past the cap a call is only counted: this recording is over in seconds, where
    the six thousand tries took minutes."""
    (tmp_path / "ledger.py").write_text(LEDGER)
    (tmp_path / "test_box.py").write_text(LEDGER_TEST)
    config = {"targets": [["ledger.py", "Ledger.get"]], "per_target": 1, "sites_per_target": 1}
    (tmp_path / "config.json").write_text(json.dumps(config))
    out = tmp_path / "record.out"
    out.write_bytes(b"")
    env = child_env({"BENCH_CHANNEL_PROBECONFIG": str(tmp_path / "config.json"), "BENCH_CHANNEL_PROBES": str(out),
                     "PYTHONDONTWRITEBYTECODE": "1"})
    subprocess.run([sys.executable, str(RUNTIME), "record", "-q", "-p", "no:cacheprovider", "test_box.py"],
                   cwd=tmp_path, env=env, capture_output=True, timeout=60, check=True)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    counts = next(line["counts"] for line in lines if isinstance(line, dict))
    assert counts["0"][:3] == [6000, 20, "ledger"]  # every call counted; the first twenty tried and skipped
    assert [line[1] for line in lines if isinstance(line, list)] == [0]  # one site, the cap of one


def test_the_tests_the_change_is_about_have_their_sites_named_past_the_cap(tmp_path):
    (tmp_path / "box.py").write_text(BOX)
    (tmp_path / "test_box.py").write_text(TEST + '''

def test_late():
    Box().put(Thing(), 1)
''')
    config = {"targets": [["box.py", "Box.put"]], "per_target": 10, "sites_per_target": 1}
    named = [line[2] for line in _run(tmp_path, "record", config) if isinstance(line, list) and line[0] == "site"]
    assert named == ["test_box.py::test_put (call)"]
    config.update(preferred_tests=["test_box.py::test_late"], preferred_sites=5)
    named = [line[2] for line in _run(tmp_path, "record", config) if isinstance(line, list) and line[0] == "site"]
    assert named == ["test_box.py::test_put (call)", "test_box.py::test_late (call)"]
