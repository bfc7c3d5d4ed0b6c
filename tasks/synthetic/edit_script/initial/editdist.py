"""Levenshtein distance and a canonical minimal edit script."""


def _table(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        table[i][0] = i
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            substitution = table[i - 1][j - 1] + (a[i - 1] != b[j - 1])
            table[i][j] = min(substitution, table[i - 1][j] + 1, table[i][j - 1] + 1)
    return table


def distance(a, b):
    return _table(a, b)[len(a)][len(b)]


def edit_script(a, b):
    table = _table(a, b)
    i, j = len(a), len(b)
    script = []
    while i or j:
        if i and j and a[i - 1] == b[j - 1]:
            script.append(("keep", a[i - 1]))
            i, j = i - 1, j - 1
        elif i and table[i][j] == table[i - 1][j] + 1:
            script.append(("del", a[i - 1]))
            i -= 1
        elif i and j and table[i][j] == table[i - 1][j - 1] + 1:
            script.append(("sub", a[i - 1], b[j - 1]))
            i, j = i - 1, j - 1
        else:
            script.append(("ins", b[j - 1]))
            j -= 1
    script.reverse()
    return script


def apply_script(a, script):
    out = []
    i = 0
    for op in script:
        kind = op[0]
        if kind == "ins":
            out.append(op[1])
            continue
        if kind not in ("keep", "sub", "del"):
            raise ValueError(f"unknown operation {kind!r}")
        if i >= len(a) or a[i] != op[1]:
            raise ValueError(f"operation {op!r} does not match position {i}")
        if kind == "keep":
            out.append(a[i])
        elif kind == "sub":
            out.append(op[2])
        i += 1
    return "".join(out)
