"""Huffman coding with a fully specified tie-breaking rule."""

import heapq
from collections import Counter


def _tree(text):
    heap = [(count, order, ch) for order, (ch, count) in enumerate(Counter(text).items())]
    heapq.heapify(heap)
    order = len(heap)
    while len(heap) > 1:
        w1, _, left = heapq.heappop(heap)
        w2, _, right = heapq.heappop(heap)
        heapq.heappush(heap, (w1 + w2, order, (left, right)))
        order += 1
    return heap[0][2] if heap else None


def build_codes(text):
    root = _tree(text)
    if root is None:
        return {}
    codes = {}
    stack = [(root, "")]
    while stack:
        node, prefix = stack.pop()
        if isinstance(node, str):
            codes[node] = prefix
        else:
            stack.append((node[0], prefix + "0"))
            stack.append((node[1], prefix + "1"))
    return codes


def encode(text, codes):
    try:
        return "".join(codes[ch] for ch in text)
    except KeyError as missing:
        raise ValueError(f"no code for {missing.args[0]!r}") from None


def decode(bits, codes):
    by_code = {code: ch for ch, code in codes.items()}
    out = []
    current = ""
    for bit in bits:
        if bit not in "01":
            raise ValueError(f"not a bit: {bit!r}")
        current += bit
        if current in by_code:
            out.append(by_code[current])
            current = ""
        elif not any(code.startswith(current) for code in by_code):
            raise ValueError(f"no code starts with {current!r}")
    return "".join(out)
