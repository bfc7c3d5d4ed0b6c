"""A small INI file reader."""

import re

_SEPARATOR = re.compile(r"[=:]")
_TRUE = {"1", "yes", "true", "on"}
_FALSE = {"0", "no", "false", "off"}


def parse_ini(text):
    config = {}
    section = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = config.setdefault(line[1:-1].strip(), {})
            continue
        match = _SEPARATOR.search(line)
        if not match:
            raise ValueError(f"line {number}: not a section header or entry: {raw!r}")
        key = line[: match.start()].strip().lower()
        if not key:
            raise ValueError(f"line {number}: empty key")
        if section is None:
            section = config.setdefault("", {})
        section[key] = line[match.end():].strip()
    return config


def get_bool(section, key, default=False):
    if key not in section:
        return default
    value = section[key].lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"not a boolean: {section[key]!r}")
