from __future__ import annotations

from bench.report import tables
from bench.report.runs import LoopRun, LoopTurn


def run(task_id: str, condition: str, first_solved: int | None) -> LoopRun:
    """A three-turn loop that converges at ``first_solved`` (None: never)."""
    outcomes = ["model_miss"] * (first_solved or 3)
    if first_solved:
        outcomes[-1] = "solved"
    turns = tuple(LoopTurn(n, o, f"s{n}", f"d{n}", True, (), 1, 0) for n, o in enumerate(outcomes, 1))
    verdict = "CONVERGED" if first_solved else "EXHAUSTED"
    return LoopRun(task_id, "lib", "easy", "m", condition, 0, 3, turns, verdict, first_solved, verdict)


def _in(library: str, loop: LoopRun) -> LoopRun:
    from dataclasses import replace

    return replace(loop, library=library)


def test_library_table_pairs_the_conditions_within_each_library():
    full = [_in("a", run("a1", "full", 1)), _in("a", run("a2", "full", 2)), _in("b", run("b1", "full", None))]
    count = [_in("a", run("a1", "count-only", None)), _in("a", run("a2", "count-only", None)),
             _in("b", run("b1", "count-only", 3))]
    table = tables.library_table({"full": full, "count-only": count})
    assert table is not None
    assert table.columns == ("library", "full converged", "count-only converged", "discordant (b, c)",
                             "exact McNemar p")
    assert table.rows == (("a", "2/2", "0/2", "2, 0", "0.5"), ("b", "0/1", "1/1", "0, 1", "1"))


def test_library_table_is_left_out_for_a_single_library():
    assert tables.library_table({"full": [run("t1", "full", 1)]}) is None


def test_library_table_without_both_conditions_has_no_paired_columns():
    table = tables.library_table({"full": [_in("a", run("a1", "full", 1)), _in("b", run("b1", "full", 1))]})
    assert table.columns == ("library", "full converged")
    assert table.rows == (("a", "1/1"), ("b", "1/1"))
