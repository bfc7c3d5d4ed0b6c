"""Clockwise spiral traversal of rectangular matrices."""


def _spiral_cells(rows, cols):
    top, bottom, left, right = 0, rows - 1, 0, cols - 1
    while top <= bottom and left <= right:
        for c in range(left, right + 1):
            yield top, c
        top += 1
        for r in range(top, bottom + 1):
            yield r, right
        right -= 1
        for c in range(right, left - 1, -1):
            yield bottom, c
        bottom -= 1
        for r in range(bottom, top - 1, -1):
            yield r, left
        left += 1


def spiral_order(matrix):
    if not matrix:
        return []
    cols = len(matrix[0])
    if any(len(row) != cols for row in matrix):
        raise ValueError("ragged matrix")
    return [matrix[r][c] for r, c in _spiral_cells(len(matrix), cols)]


def spiral_fill(rows, cols):
    if rows < 0 or cols < 0:
        raise ValueError("negative size")
    if rows == 0 or cols == 0:
        return []
    grid = [[0] * cols for _ in range(rows)]
    for value, (r, c) in enumerate(_spiral_cells(rows, cols), start=1):
        grid[r][c] = value
    return grid
