"""Parsing of 'target: dep dep' dependency files."""

import re

_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def parse_deps(text):
    graph = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        target, colon, rest = line.partition(":")
        target = target.strip()
        if not colon or not _NAME.fullmatch(target):
            raise ValueError(f"line {number}: expected 'target: deps', got {raw!r}")
        deps = graph.setdefault(target, [])
        for dep in rest.split():
            if not _NAME.fullmatch(dep):
                raise ValueError(f"line {number}: invalid dependency name {dep!r}")
            deps.append(dep)
    return graph
