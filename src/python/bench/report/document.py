"""A report as a list of blocks, rendered to Markdown here and to HTML in ``bench.report.html``.

Both outputs come from the same blocks, so they cannot disagree. Text is plain, except that `backticks` mark
inline code in both renderings. Renderers are pure: the same document gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class Heading:
    level: int  # 1..4
    text: str


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""
    numeric: tuple[bool, ...] = ()  # per column: right-align (defaults to all but the first column)

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"row {row!r} has {len(row)} cells for {len(self.columns)} columns")

    def is_numeric(self, column: int) -> bool:
        return self.numeric[column] if self.numeric else column > 0


@dataclass(frozen=True)
class Figure:
    filename: str  # relative to the report's directory
    alt: str
    caption: str = ""


Block = Union[Heading, Paragraph, Bullets, Table, Figure]


@dataclass(frozen=True)
class Document:
    title: str
    blocks: tuple[Block, ...]


def render_markdown(document: Document) -> str:
    parts = [f"# {document.title}"]
    for block in document.blocks:
        parts.append(_markdown_block(block))
    return "\n\n".join(parts) + "\n"


def _markdown_block(block: Block) -> str:
    if isinstance(block, Heading):
        return "#" * block.level + " " + block.text
    if isinstance(block, Paragraph):
        return block.text
    if isinstance(block, Bullets):
        return "\n".join(f"- {item}" for item in block.items)
    if isinstance(block, Table):
        return _markdown_table(block)
    if isinstance(block, Figure):
        image = f"![{_escape_markdown_alt(block.alt)}]({block.filename})"
        return f"{image}\n\n*{block.caption}*" if block.caption else image
    raise TypeError(f"unknown block {block!r}")


def _markdown_table(table: Table) -> str:
    lines = []
    if table.caption:
        lines.extend([f"**{table.caption}**", ""])
    lines.append("| " + " | ".join(_cell(column) for column in table.columns) + " |")
    lines.append("|" + "|".join("---:" if table.is_numeric(i) else "---" for i in range(len(table.columns))) + "|")
    for row in table.rows:
        lines.append("| " + " | ".join(_cell(cell) for cell in row) + " |")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _escape_markdown_alt(text: str) -> str:
    return text.replace("[", "(").replace("]", ")")
