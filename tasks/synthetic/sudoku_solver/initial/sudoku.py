"""Sudoku validation and a deterministic backtracking solver."""


def _check_shape(grid):
    if len(grid) != 9 or any(len(row) != 9 for row in grid):
        raise ValueError("a grid has 9 rows of 9 cells")
    if any(not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 9 for row in grid for v in row):
        raise ValueError("cells hold integers 0-9")


def _box(row, col):
    return (row // 3) * 3 + col // 3


def is_valid(grid):
    _check_shape(grid)
    seen = set()
    for r in range(9):
        for c in range(9):
            digit = grid[r][c]
            if digit:
                keys = (("row", r, digit), ("col", c, digit))
                if any(key in seen for key in keys):
                    return False
                seen.update(keys)
    return True


def candidates(grid, row, col):
    _check_shape(grid)
    if grid[row][col]:
        return []
    used = set(grid[row]) | {grid[r][col] for r in range(9)}
    top, left = row // 3, col // 3
    used |= {grid[r][c] for r in range(top, top + 3) for c in range(left, left + 3)}
    return [d for d in range(1, 10) if d not in used]


def solve(grid):
    if not is_valid(grid):
        return None
    work = grid
    rows = [set(work[r]) for r in range(9)]
    cols = [{work[r][c] for r in range(9)} for c in range(9)]
    boxes = [set() for _ in range(9)]
    for r in range(9):
        for c in range(9):
            boxes[_box(r, c)].add(work[r][c])
    empty = [(r, c) for r in range(9) for c in range(9) if not work[r][c]]

    def fill(k):
        if k == len(empty):
            return True
        r, c = empty[k]
        b = _box(r, c)
        for digit in range(1, 10):
            if digit not in rows[r] and digit not in cols[c] and digit not in boxes[b]:
                work[r][c] = digit
                rows[r].add(digit), cols[c].add(digit), boxes[b].add(digit)
                if fill(k + 1):
                    return True
                rows[r].discard(digit), cols[c].discard(digit), boxes[b].discard(digit)
        work[r][c] = 0
        return False

    return work if fill(0) else None
