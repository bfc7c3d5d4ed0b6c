from bench.report.build import build_report
from bench.report.cutoff import DateSplit, cutoff_section
from bench.report.demo_records import synthetic_records
from bench.report.document import Paragraph, Table
from bench.report.headline import headline
from bench.report.runs import RecordSet, parse_records


def _split(record_set):
    # tasks numbered below 10 are dated 2024, the rest 2025 but for the last one, which is undated
    ids = sorted({r.task_id for r in record_set.attempts})
    days = {t: ("2024-03-01" if int(t[-3:]) < 10 else "2025-03-01") for t in ids[:-1]}
    return DateSplit("2025-01-01", days), ids


def test_every_headline_is_given_for_each_side_of_the_cutoff_with_its_interval():
    record_set = parse_records(synthetic_records(seed=0))
    split, ids = _split(record_set)
    blocks = cutoff_section(record_set, split)
    paragraphs = [b.text for b in blocks if isinstance(b, Paragraph)]
    before = RecordSet(tuple(r for r in record_set.loops if split.side(r.task_id) == "before"),
                       tuple(r for r in record_set.attempts if split.side(r.task_id) == "before"), (), 0)
    assert paragraphs[0] == f"**Tasks dated before 2025-01-01** (10 tasks): {headline(before)}"
    assert paragraphs[1].startswith(f"**Tasks dated on or after 2025-01-01** ({len(ids) - 11} tasks): ")
    assert paragraphs[2].startswith("**Undated tasks** (1 task): ")
    (table,) = [b for b in blocks if isinstance(b, Table)]
    attempts = [row for row in table.rows if row[0].endswith("attempts")]
    assert [row[1] for row in attempts] == ["before", "after", "undated"]
    usable = [r for r in record_set.attempts if r.outcome != "infrastructure_error"]
    assert [int(row[3]) for row in attempts] == [sum(split.side(r.task_id) == side for r in usable)
                                                 for side in ("before", "after", "undated")]
    assert [int(row[4]) for row in attempts] == [sum(r.resolved for r in usable if split.side(r.task_id) == side)
                                                 for side in ("before", "after", "undated")]
    assert all(row[6].startswith("[") for row in attempts)


def test_a_side_without_units_says_so_and_the_report_carries_the_section(tmp_path):
    records = synthetic_records(seed=0)
    record_set = parse_records(records)
    ids = {r.task_id for r in record_set.attempts} | {r.task_id for r in record_set.loops}
    split = DateSplit("2030-01-01", {t: "2024-03-01" for t in ids})
    paragraphs = [b.text for b in cutoff_section(record_set, split) if isinstance(b, Paragraph)]
    assert paragraphs[1] == "**Tasks dated on or after 2030-01-01**: no unit of this run."
    assert len(paragraphs) == 2  # no undated task: no line for them
    with_cutoff = build_report(records, tmp_path / "with", cutoff=split).md.read_text()
    without = build_report(records, tmp_path / "without").md.read_text()
    assert "## Before and after the cut-off 2030-01-01" in with_cutoff
    assert "cut-off" not in without
