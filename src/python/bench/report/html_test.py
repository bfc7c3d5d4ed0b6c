"""Tables fit the page: at 1400 px the turn-outcome table of the committed mutation study scrolled and hid its
last column (measured with headless Chromium). The layout is pinned here by the CSS and HTML that make a table
fit its page — cells may wrap, headers after `_` and `/`, a table of many columns is set smaller — never a
scroll box."""

from __future__ import annotations

import re

from bench.report.document import Document, Table
from bench.report.html import CSS, render_html

OUTCOME_COLUMNS = ("condition", "turns", "turns/run", "solved", "model_miss", "tampered", "invalid_edit",
                   "model_timeout", "infrastructure_error", "worker tokens/run", "controller tokens/run")


def _rule(selector: str) -> str:
    found = re.search(r"(?m)^" + re.escape(selector) + r" \{([^}]*)\}", CSS)
    assert found, f"no CSS rule for {selector!r}"
    return found.group(1)


def test_tables_wrap_to_the_page_instead_of_scrolling():
    assert "overflow-x" not in CSS and "overflow: auto" not in CSS and "overflow: scroll" not in CSS
    assert "max-width: 100%" in _rule(".table-block")
    assert "max-width: 100%" in _rule("table")
    assert "overflow-wrap: anywhere" in _rule("th, td")
    assert "white-space: nowrap" not in _rule("th, td")  # only numbers keep to one line
    assert "white-space: nowrap" in _rule("td.num")


def test_a_table_of_many_columns_is_set_smaller_and_its_headers_can_break():
    wide = Table(OUTCOME_COLUMNS, (("full", "1530", "3.00", "42", "1488", "0", "0", "0", "0", "0", "0"),))
    narrow = Table(("statistic", "value"), (("p", "0.5"),))
    page = render_html(Document("t", (wide, narrow)))
    assert page.count('<div class="table-block wide">') == 1 and page.count('<div class="table-block">') == 1
    assert "font-size: .82rem" in _rule(".wide table")
    head = re.search(r"<thead><tr>(.*?)</tr></thead>", page).group(1)
    assert re.findall(r"<th[^>]*>(.*?)</th>", head) == [
        "condition", "turns", "turns/<wbr>run", "solved", "model_<wbr>miss", "tampered", "invalid_<wbr>edit",
        "model_<wbr>timeout", "infrastructure_<wbr>error", "worker tokens/<wbr>run", "controller tokens/<wbr>run"]


def test_code_in_a_header_is_not_broken():
    page = render_html(Document("t", (Table(("`a_b` c_d", "n"), (("x", "1"),)),)))
    assert "<th><code>a_b</code> c_<wbr>d</th>" in page
