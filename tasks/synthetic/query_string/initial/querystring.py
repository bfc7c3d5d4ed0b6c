"""URL query-string parsing and building."""

from urllib.parse import quote_plus, unquote


def parse_query(qs):
    if qs.startswith("?"):
        qs = qs[1:]
    result = {}
    for piece in qs.split("&"):
        if not piece:
            continue
        key, value = piece.split("=")
        result.setdefault(unquote(key), []).append(unquote(value))
    return result


def build_query(params):
    pairs = []
    for key, values in params.items():
        if isinstance(values, str):
            values = [values]
        for value in values:
            pairs.append(f"{quote_plus(key, safe='')}={quote_plus(value, safe='')}")
    return "&".join(pairs)
