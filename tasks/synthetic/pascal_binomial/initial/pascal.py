"""Rows of Pascal's triangle and binomial coefficients."""


def pascal_row(n):
    if n < 0:
        raise ValueError("row index must not be negative")
    row = [1]
    for _ in range(1, n):
        row = [1] + [row[i] + row[i + 1] for i in range(len(row) - 1)] + [1]
    return row


def pascal_triangle(rows):
    return [pascal_row(n) for n in range(rows)]


def binomial(n, k):
    if n < 0:
        raise ValueError("n must not be negative")
    return pascal_row(n)[k]
