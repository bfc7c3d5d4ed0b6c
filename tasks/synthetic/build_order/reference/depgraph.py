"""Parsing of 'target: dep dep' dependency files."""

import re

_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def parse_deps(text):
    graph = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        target, colon, rest = line.partition(":")
        target = target.strip()
        if not colon or not _NAME.fullmatch(target):
            raise ValueError(f"line {number}: expected 'target: deps', got {raw!r}")
        deps = graph.setdefault(target, [])
        for dep in rest.split():
            if not _NAME.fullmatch(dep):
                raise ValueError(f"line {number}: invalid dependency name {dep!r}")
            if dep not in deps:
                deps.append(dep)
    return graph
