"""Parsing and formatting of single CSV lines."""


def _check_delimiter(delimiter):
    if len(delimiter) != 1 or delimiter == '"':
        raise ValueError(f"bad delimiter {delimiter!r}")


def _quoted_field(line, i):
    """Parse a quoted field whose opening quote is at line[i]; return (text, index after closing quote)."""
    i += 1
    parts = []
    while True:
        if i >= len(line):
            raise ValueError("unterminated quoted field")
        ch = line[i]
        if ch == '"':
            if i + 1 < len(line) and line[i + 1] == '"':
                parts.append('"')
                i += 2
                continue
            return "".join(parts), i + 1
        parts.append(ch)
        i += 1


def parse_line(line, delimiter=","):
    _check_delimiter(delimiter)
    fields = []
    i = 0
    while True:
        if i < len(line) and line[i] == '"':
            text, i = _quoted_field(line, i)
            if i < len(line) and line[i] != delimiter:
                raise ValueError(f"unexpected {line[i]!r} after closing quote at {i}")
        else:
            end = line.find(delimiter, i)
            end = len(line) if end == -1 else end
            text, i = line[i:end], end
        fields.append(text)
        if i >= len(line):
            return fields
        i += 1  # skip the delimiter; a delimiter at the very end leaves one more empty field


def format_line(fields, delimiter=","):
    _check_delimiter(delimiter)
    out = []
    for field in fields:
        if any(ch in field for ch in (delimiter, '"', "\n", "\r")):
            field = '"' + field.replace('"', '""') + '"'
        out.append(field)
    return delimiter.join(out)
