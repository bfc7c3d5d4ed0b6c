import copy

import pytest

import sudoku


def grid(*rows):
    return [[int(ch) for ch in row] for row in rows]


SOLUTION = grid("538192746", "192746538", "746538192", "381927465", "927465381",
                "465381927", "819274653", "274653819", "653819274")
PUZZLE = grid("008102006", "100740500", "040038090", "301007405", "920400380",
              "065080027", "009204003", "200650800", "050019070")
MULTI = grid("500190046", "190046008", "046008100", "001900460", "900460081",
             "460081007", "019004600", "004600810", "600810074")
MULTI_FIRST = grid("528193746", "193746528", "746528193", "281937465", "937465281",
                   "465281937", "819374652", "374652819", "652819374")


def test_solved_grid_is_valid():
    assert sudoku.is_valid(SOLUTION) is True


def test_duplicates_detected():
    bad_row = copy.deepcopy(PUZZLE)
    bad_row[0][0] = 1  # row 0 already has a 1
    assert sudoku.is_valid(bad_row) is False
    bad_box = copy.deepcopy(PUZZLE)
    bad_box[1][1] = 8  # the top-left box already has an 8
    assert sudoku.is_valid(bad_box) is False


def test_candidates():
    assert sudoku.candidates(PUZZLE, 0, 0) == [5, 7]
    assert sudoku.candidates(PUZZLE, 2, 6) == [1, 2, 7]
    assert sudoku.candidates(PUZZLE, 4, 2) == [7]
    assert sudoku.candidates(PUZZLE, 0, 2) == []


def test_solve_unique_puzzle_without_modifying_input():
    before = copy.deepcopy(PUZZLE)
    assert sudoku.solve(PUZZLE) == SOLUTION
    assert PUZZLE == before


def test_solve_picks_row_major_smallest_solution():
    assert sudoku.solve(MULTI) == MULTI_FIRST


def test_solve_empty_grid():
    solved = sudoku.solve([[0] * 9 for _ in range(9)])
    assert solved[:4] == grid("123456789", "456789123", "789123456", "214365897")
    assert sudoku.is_valid(solved)


def test_unsolvable_and_invalid_grids():
    stuck = [[0] * 9 for _ in range(9)]
    stuck[0] = [1, 2, 3, 4, 5, 6, 7, 8, 0]
    stuck[4][8] = 9  # the last cell of row 0 can only be 9, which its column forbids
    assert sudoku.is_valid(stuck) is True
    assert sudoku.solve(stuck) is None
    clash = copy.deepcopy(PUZZLE)
    clash[0][1] = 1
    assert sudoku.solve(clash) is None


def test_shape_errors():
    with pytest.raises(ValueError):
        sudoku.is_valid([[0] * 9] * 8)
    with pytest.raises(ValueError):
        sudoku.solve([[0] * 8 + [10]] + [[0] * 9] * 8)
