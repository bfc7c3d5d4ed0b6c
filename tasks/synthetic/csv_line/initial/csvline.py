"""Parsing and formatting of single CSV lines."""


def _check_delimiter(delimiter):
    if len(delimiter) != 1 or delimiter == '"':
        raise ValueError(f"bad delimiter {delimiter!r}")


def parse_line(line, delimiter=","):
    _check_delimiter(delimiter)
    fields = []
    current = ""
    in_quotes = False
    for ch in line:
        if in_quotes:
            if ch == '"':
                in_quotes = False
            else:
                current += ch
        elif ch == '"':
            in_quotes = True
        elif ch == delimiter:
            fields.append(current)
            current = ""
        else:
            current += ch
    if current:
        fields.append(current)
    return fields


def format_line(fields, delimiter=","):
    _check_delimiter(delimiter)
    out = []
    for field in fields:
        if any(ch in field for ch in (delimiter, '"', "\n", "\r")):
            field = '"' + field.replace('"', '""') + '"'
        out.append(field)
    return delimiter.join(out)
