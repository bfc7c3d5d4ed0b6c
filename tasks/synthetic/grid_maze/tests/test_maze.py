import pytest

import maze


def test_straight_corridor():
    assert maze.shortest_path(["S..G"]) == "RRR"


def test_detour_around_walls():
    assert maze.shortest_path(["S.#", "#.#", "#.G"]) == "RDDR"


def test_unreachable_goal():
    assert maze.shortest_path(["S#G"]) is None
    assert maze.shortest_path(["S.#", "###", "..G"]) is None


def test_ties_take_alphabetically_smallest_moves():
    assert maze.shortest_path(["..G", "...", "S.."]) == "RRUU"
    assert maze.shortest_path(["S..", "...", "..G"]) == "DDRR"


def test_tie_with_walls():
    grid = [
        "G...",
        ".#..",
        "...S",
    ]
    assert maze.shortest_path(grid) == "LLLUU"


def test_reachable_count_includes_start():
    assert maze.reachable_count(["S#G"]) == 1
    assert maze.reachable_count([".S.", "###", "..G"]) == 3


def test_invalid_mazes():
    for bad in ([], [""], ["S.", "."], ["S.G", "S.."], ["S.."], ["S.x", "..G"]):
        with pytest.raises(ValueError):
            maze.shortest_path(bad)


def test_ragged_rows_rejected():
    with pytest.raises(ValueError):
        maze.shortest_path(["S.", ".G."])
