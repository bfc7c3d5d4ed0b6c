"""Line-based diff from a longest common subsequence, and grouping into hunks."""


def _lcs_table(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            if a[i] == b[j]:
                table[i][j] = table[i + 1][j + 1] + 1
            else:
                table[i][j] = max(table[i + 1][j], table[i][j + 1])
    return table


def diff(a, b):
    table = _lcs_table(a, b)
    ops = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            ops.append((" ", a[i]))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            ops.append(("-", a[i]))
            i += 1
        else:
            ops.append(("+", b[j]))
            j += 1
    ops += [("-", line) for line in a[i:]]
    ops += [("+", line) for line in b[j:]]
    return ops


def apply_diff(a, ops):
    out = []
    i = 0
    for tag, line in ops:
        if tag == "+":
            out.append(line)
            continue
        if tag not in (" ", "-") or i >= len(a) or a[i] != line:
            raise ValueError(f"operation {(tag, line)!r} does not match line {i}")
        if tag == " ":
            out.append(line)
        i += 1
    if i != len(a):
        raise ValueError("diff does not consume the whole input")
    return out


def hunks(ops, context=3):
    ranges = []
    for k, (tag, _) in enumerate(ops):
        if tag == " ":
            continue
        low, high = max(0, k - context), min(len(ops) - 1, k + context)
        if ranges and low <= ranges[-1][1] + 1:
            ranges[-1][1] = max(ranges[-1][1], high)
        else:
            ranges.append([low, high])
    return [ops[low:high + 1] for low, high in ranges]
