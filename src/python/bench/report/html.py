"""Render a report :class:`~bench.report.document.Document` as one self-contained HTML page.

The page carries its own CSS (no external fonts, scripts or styles) and refers to the PNGs beside it by
relative ``<img>`` links, so the report directory can be moved or archived as a whole.
"""

from __future__ import annotations

import html
import re

from bench.report.document import Block, Bullets, Document, Figure, Heading, Paragraph, Table

_CODE = re.compile(r"`([^`]+)`")

CSS = """
body { font-family: -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif; color: #1b1f24;
       max-width: 1100px; margin: 2rem auto; padding: 0 1.5rem; line-height: 1.45; }
h1 { border-bottom: 2px solid #d0d7de; padding-bottom: .3rem; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .2rem; margin-top: 2.2rem; }
h3 { margin-top: 1.8rem; }
code { background: #f2f4f7; padding: .05rem .3rem; border-radius: 3px; font-size: .92em; }
.table-block { margin: .6rem 0 1.2rem; max-width: 100%; }
.table-caption { font-weight: 600; margin: 0 0 .3rem; }
table { border-collapse: collapse; font-size: .92rem; max-width: 100%; }
th, td { border: 1px solid #d0d7de; padding: .25rem .6rem; overflow-wrap: anywhere; vertical-align: top; }
th { background: #f6f8fa; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
.wide table { font-size: .82rem; }
.wide th, .wide td { padding: .2rem .35rem; }
tbody tr:nth-child(even) { background: #fbfcfd; }
figure { margin: 1rem 0 1.6rem; }
figure img { max-width: 100%; border: 1px solid #e4e8ec; }
figcaption { font-size: .9rem; color: #57606a; }
ul { padding-left: 1.4rem; }
""".strip()


def render_html(document: Document) -> str:
    body = "\n".join(_block(block) for block in document.blocks)
    title = html.escape(document.title)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>\n{CSS}\n</style>\n</head>\n<body>\n"
        f"<h1>{title}</h1>\n{body}\n</body>\n</html>\n"
    )


def inline(text: str) -> str:
    """Escape ``text`` for HTML and turn `backtick` spans into <code>."""
    return _CODE.sub(lambda found: f"<code>{found.group(1)}</code>", html.escape(text, quote=True))


def _block(block: Block) -> str:
    if isinstance(block, Heading):
        level = min(max(block.level, 1), 6)
        return f"<h{level}>{inline(block.text)}</h{level}>"
    if isinstance(block, Paragraph):
        return f"<p>{inline(block.text)}</p>"
    if isinstance(block, Bullets):
        return "<ul>\n" + "\n".join(f"<li>{inline(item)}</li>" for item in block.items) + "\n</ul>"
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Figure):
        caption = f"\n<figcaption>{inline(block.caption)}</figcaption>" if block.caption else ""
        source = html.escape(block.filename, quote=True)
        return f'<figure>\n<img src="{source}" alt="{html.escape(block.alt, quote=True)}">{caption}\n</figure>'
    raise TypeError(f"unknown block {block!r}")


WIDE_COLUMNS = 8  # a table with more columns is set smaller, so it fits the page


def _table(table: Table) -> str:
    """A table that fits the page's width (never a scroll bar hiding a column): cells wrap, headers also after
    ``_`` and ``/``, numbers never; a table of many columns is set in a smaller font with narrower padding."""
    def cls(column: int) -> str:
        return ' class="num"' if table.is_numeric(column) else ""

    head = "".join(f"<th{cls(i)}>{_breakable(column)}</th>" for i, column in enumerate(table.columns))
    rows = "\n".join(
        "<tr>" + "".join(f"<td{cls(i)}>{inline(cell)}</td>" for i, cell in enumerate(row)) + "</tr>"
        for row in table.rows
    )
    # A caption outside the table: a <caption> is only as wide as its table and wraps on narrow ones.
    caption = f'<p class="table-caption">{inline(table.caption)}</p>\n' if table.caption else ""
    block = "table-block wide" if len(table.columns) > WIDE_COLUMNS else "table-block"
    return (
        f'<div class="{block}">\n{caption}<table>\n<thead><tr>{head}</tr></thead>\n'
        f"<tbody>\n{rows}\n</tbody>\n</table>\n</div>"
    )


def _breakable(text: str) -> str:
    """A header as inline HTML with a line-break opportunity after each ``_`` and ``/`` (outside code)."""
    parts = text.split("`")  # odd parts are code spans (as inline() reads them)
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans
        parts = [text]
    return "".join(
        f"<code>{html.escape(part, quote=True)}</code>" if index % 2 else
        re.sub(r"([_/])", r"\1<wbr>", html.escape(part, quote=True))
        for index, part in enumerate(parts)
    )
