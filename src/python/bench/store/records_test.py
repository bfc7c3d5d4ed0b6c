from __future__ import annotations

from pathlib import Path

from bench.store.action_cache import ActionCache, write_atomic
from bench.store.records import RecordWriter, cut_partial_tail, read_records


def test_partial_tail_left_by_a_crash_is_ignored_then_cut(tmp_path: Path):
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as writer:
        writer.append({"a": 1})
        writer.append({"b": 2})
    with open(path, "ab") as handle:
        handle.write(b'{"c": 3, "trunc')
    assert read_records(path) == [{"a": 1}, {"b": 2}]
    with RecordWriter(path) as writer:  # resuming cuts the remnant before appending
        writer.append({"c": 3})
    assert read_records(path) == [{"a": 1}, {"b": 2}, {"c": 3}]
    assert cut_partial_tail(path) == 0


def test_records_are_canonical_lines(tmp_path: Path):
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as writer:
        writer.append({"z": 1, "a": [1, 2]})
    assert path.read_bytes() == b'{"a":[1,2],"z":1}\n'


def test_action_cache_roundtrip_and_atomic_write(tmp_path: Path):
    cache = ActionCache("t", root=tmp_path)
    key = cache.key({"x": 1})
    assert cache.get(key) is None
    cache.put(key, b"data")
    assert cache.get(key) == b"data"
    assert key == cache.key({"x": 1}) != cache.key({"x": 2})
    write_atomic(tmp_path / "f", b"1")
    assert (tmp_path / "f").read_bytes() == b"1"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".f")] == []
