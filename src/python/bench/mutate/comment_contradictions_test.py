"""The comment rule's candidates: comment and docstring lines of the mutant file next to the mutated span that
mention a word the mutant changed; a comment removed with the code it described is no candidate."""

from __future__ import annotations

from bench.mutate.comment_contradictions import Candidate, candidates, changed_words

XML = (b"class Match:\n    def __init__(self, doc):\n        self.has_html_namespace = has_html_ns(doc)\n\n"
       b"        # A document can be both XML and HTML (XHTML)\n        self.is_xml = is_xml_tree(doc)\n"
       b"        self.is_html = not self.is_xml or self.has_html_namespace\n")


def _span(source: bytes, text: bytes) -> tuple[int, int]:
    start = source.index(text)
    return start, start + len(text)


def test_a_comment_directly_above_that_the_dropped_clause_contradicts_is_a_candidate():
    start, end = _span(XML, b" or self.has_html_namespace")
    assert candidates(XML, start, end, "") == (
        Candidate(5, "A document can be both XML and HTML (XHTML)", ("and", "both", "html")),)


def test_an_operator_word_in_a_comment_on_the_line_above_is_a_candidate():
    source = b"def f(a, b):\n    # go back when a is greater than b\n    return 7 if a > b else 0\n"
    start, end = _span(source, b">")
    assert [c.words for c in candidates(source, start, end, ">=")] == [("greater",)]


def test_a_comment_the_mutant_removes_or_a_comment_further_away_is_no_candidate():
    source = (b"def f(width):\n    # width must be a list\n\n\n\n    x = 1\n"
              b"    if type(width) is tuple:  # a tuple becomes a list\n        width = list(width)\n    return width\n")
    start, end = _span(source, b"    if type(width) is tuple:  # a tuple becomes a list\n        width = list(width)\n")
    assert candidates(source, start, end, "") == ()  # the comment at line 2 is 5 lines away
    assert "list" in changed_words("width = list(width)", "")
