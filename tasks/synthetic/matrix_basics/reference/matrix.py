"""Small dense-matrix helpers on lists of rows."""


def identity(n):
    return [[1 if i == j else 0 for j in range(n)] for i in range(n)]


def transpose(m):
    if not m:
        return []
    return [[row[j] for row in m] for j in range(len(m[0]))]


def _shape(m):
    if not m or not m[0] or any(len(row) != len(m[0]) for row in m):
        raise ValueError("matrix must be non-empty and rectangular")
    return len(m), len(m[0])


def matmul(a, b):
    rows, inner = _shape(a)
    inner_b, cols = _shape(b)
    if inner != inner_b:
        raise ValueError(f"cannot multiply {rows}x{inner} by {inner_b}x{cols}")
    return [[sum(a[i][k] * b[k][j] for k in range(inner)) for j in range(cols)] for i in range(rows)]
