from bench.report.adequacy import adequacy_section, adequacy_table
from bench.report.demo_records import synthetic_records
from bench.report.document import Paragraph
from bench.report.runs import parse_records


def _bands(record_set):
    # even-numbered tasks: every near miss caught; odd: some survive; task 023 unmeasured
    ids = sorted({r.task_id for r in record_set.attempts})
    return {t: ("all caught" if int(t[-3:]) % 2 == 0 else "some survive") for t in ids if not t.endswith("023")}


def test_results_split_by_band_count_every_usable_unit_once():
    record_set = parse_records(synthetic_records(seed=0))
    bands = _bands(record_set)
    table = adequacy_table(record_set, bands)
    attempts = [row for row in table.rows if row[0].endswith("attempts")]
    assert [row[1] for row in attempts] == ["all caught", "some survive", "unmeasured"]
    usable = [r for r in record_set.attempts if r.outcome != "infrastructure_error"]
    assert sum(int(row[3]) for row in attempts) == len(usable)
    assert [int(row[2]) for row in attempts] == [12, 11, 1]
    solved_weak = sum(r.resolved for r in usable if bands.get(r.task_id) == "some survive")
    assert int(attempts[1][4]) == solved_weak
    loops = [row for row in table.rows if "loops" in row[0]]
    assert [(row[0], row[1]) for row in loops] == [
        (f"`scripted/synthetic` loops, {condition}", band)
        for condition in ("full", "count-only", "resample") for band in ("all caught", "some survive", "unmeasured")
    ]
    usable_loops = [r for r in record_set.loops if not r.infrastructure_error]
    assert sum(int(row[3]) for row in loops) == len(usable_loops)


def test_the_section_names_tasks_solved_despite_a_surviving_near_miss_and_is_absent_when_nothing_was_measured():
    record_set = parse_records(synthetic_records(seed=0))
    bands = _bands(record_set)
    blocks = adequacy_section(record_set, bands)
    weak = sorted({r.task_id for r in record_set.attempts if r.resolved and bands.get(r.task_id) == "some survive"}
                  | {r.task_id for r in record_set.loops if r.converged and not r.infrastructure_error
                     and bands.get(r.task_id) == "some survive"})
    (paragraph,) = [b for b in blocks if isinstance(b, Paragraph)]
    assert weak and f"({len(weak)} tasks;" in paragraph.text and all(f"`{t}`" in paragraph.text for t in weak)
    assert adequacy_section(record_set, {}) == []
    assert adequacy_section(record_set, {t: "unmeasured" for t in bands}) == []
