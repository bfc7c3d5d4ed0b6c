from __future__ import annotations

import pytest

from bench.report.document import Bullets, Document, Figure, Heading, Paragraph, Table, render_markdown
from bench.report.html import render_html

DOCUMENT = Document(
    "Title <&>",
    (
        Heading(2, "Section `x`"),
        Paragraph("Rate of a|b is <1>."),
        Bullets(("one", "two `code`")),
        Table(("name", "value"), (("a|b", "0.500"), ("c", "1.000")), caption="Numbers"),
        Figure("plot-a.png", "A [plot]", "Caption."),
    ),
)


def test_markdown_rendering_of_every_block():
    assert render_markdown(DOCUMENT) == (
        "# Title <&>\n\n"
        "## Section `x`\n\n"
        "Rate of a|b is <1>.\n\n"
        "- one\n- two `code`\n\n"
        "**Numbers**\n\n| name | value |\n|---|---:|\n| a\\|b | 0.500 |\n| c | 1.000 |\n\n"
        "![A (plot)](plot-a.png)\n\n*Caption.*\n"
    )


def test_html_escapes_text_and_marks_code():
    page = render_html(DOCUMENT)
    assert "<title>Title &lt;&amp;&gt;</title>" in page
    assert "<h2>Section <code>x</code></h2>" in page
    assert "<p>Rate of a|b is &lt;1&gt;.</p>" in page
    assert "<li>two <code>code</code></li>" in page


def test_html_tables_are_inline_with_numeric_columns_right_aligned():
    page = render_html(DOCUMENT)
    assert '<p class="table-caption">Numbers</p>' in page
    assert '<tr><td>a|b</td><td class="num">0.500</td></tr>' in page


def test_html_embeds_images_by_relative_link():
    assert '<img src="plot-a.png" alt="A [plot]">' in render_html(DOCUMENT)


def test_html_is_self_contained():
    page = render_html(DOCUMENT)
    assert "<style>" in page
    for external in ("<link", "<script", "http://", "https://", "@import", "url("):
        assert external not in page


def test_rendering_is_deterministic():
    assert render_html(DOCUMENT) == render_html(DOCUMENT)
    assert render_markdown(DOCUMENT) == render_markdown(DOCUMENT)


def test_table_rejects_ragged_rows():
    with pytest.raises(ValueError, match="2 cells for 3 columns"):
        Table(("a", "b", "c"), (("1", "2"),))
