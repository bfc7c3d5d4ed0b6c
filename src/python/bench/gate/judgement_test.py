"""The bug-fix judgement, one rule at a time, on constructed changes: each case asserts the exact verdict."""

from __future__ import annotations

from dataclasses import replace

from bench.gate.judgement import FixChange, NotesChange, judge, notes_categories, readable_title, title_category

SOURCE_BEFORE = "def area(w, h):\n    return w + h\n"
SOURCE_AFTER = "def area(w, h):\n    return w * h\n"
TESTS_AFTER = "from shapes import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n"
PLAIN = FixChange(title="Compute the area correctly (#12)", message="", changed_paths=("shapes.py", "tests/test_s.py"),
                  notes=(), source_before=(("shapes.py", SOURCE_BEFORE),), source_after=(("shapes.py", SOURCE_AFTER),),
                  tests_before=(("tests/test_s.py", ""),), tests_after=(("tests/test_s.py", TESTS_AFTER),),
                  fail_to_pass=("tests/test_s.py::test_area",))


def test_a_change_with_no_signal_is_unclear():
    judged = judge(PLAIN)
    # nothing calls it a fix, so it is not admitted: read by hand, most such changes were not fixes
    assert (judged.verdict, judged.signals, judged.over_specified, judged.admitted) == ("unclear", (), (), False)


def test_a_revert_is_a_revert_whatever_its_quoted_title_says():
    judged = judge(replace(PLAIN, title='Revert "Fix area for squares" (#13)'))
    assert (judged.verdict, judged.admitted) == ("revert", False)
    assert judge(replace(PLAIN, message="Undo.\n\nThis reverts commit abc.")).verdict == "revert"


def test_towncrier_fragments_speak_for_the_project():
    for fragment, verdict in (("changes/12.bugfix.rst", "bugfix"), ("newsfragments/12.feature", "feature"),
                              ("changelog.d/12.breaking.md", "breaking"), ("changelog.d/12.change.md", "unclear"),
                              ("docs/12.bugfix.rst", "unclear")):
        assert judge(replace(PLAIN, changed_paths=PLAIN.changed_paths + (fragment,))).verdict == verdict, fragment


def test_a_breaking_fragment_outweighs_a_fix_title():
    change = replace(PLAIN, title="fix: area", changed_paths=("changes/12.breaking.md",))
    assert judge(change).verdict == "breaking"


CHANGES_MD = "# Changes\n\n## 2.0\n\n### Bug fixes\n\n- Area multiplies.\n\n### Features\n\n- Volume.\n"
CHANGES_RST = "Version 2.0\n-----------\n\n- Fix the area of rectangles.\n- Add ``volume``.\n"
CHANGES_LABELS = "2.0 (unreleased)\n++++++++++++++++\n\nFeatures:\n\n- Volume.\n\nBug fixes:\n\n- Area.\n"


def test_changelog_entries_are_read_by_their_heading_or_their_first_word():
    assert notes_categories((NotesChange("CHANGES.md", CHANGES_MD, (7,)),)) == ["bugfix"]
    assert notes_categories((NotesChange("CHANGES.md", CHANGES_MD, (11,)),)) == ["feature"]
    assert notes_categories((NotesChange("CHANGES.rst", CHANGES_RST, (4, 5)),)) == ["bugfix", "feature"]
    assert notes_categories((NotesChange("CHANGELOG.rst", CHANGES_LABELS, (6, 10)),)) == ["feature", "bugfix"]
    assert notes_categories((NotesChange("CHANGES.md", CHANGES_MD, (5, 6)),)) == []  # a heading, a blank line


RELEASES_RST = ("Changelog\n=========\n\n2.6.1 (2022-12-28)\n------------------\n- Add detection of PREFIX.\n\n"
                "2.6.0 (2022-12-06)\n------------------\n- **BREAKING** Correct the log directory.\n\n"
                "2.5.4 (2022-11-12)\n------------------\n- Fix licensing metadata\n")


def test_only_the_newest_releases_entries_speak_and_a_breaking_mark_outweighs_the_words():
    # lines 6, 10 and 14 added: the new entry, and two older entries reworded in passing
    assert notes_categories((NotesChange("CHANGES.rst", RELEASES_RST, (6, 10, 14)),)) == ["feature"]
    newest_breaking = RELEASES_RST.replace("2.6.1 (2022-12-28)\n------------------\n- Add detection of PREFIX.\n\n", "")
    assert notes_categories((NotesChange("CHANGES.rst", newest_breaking, (6,)),)) == ["breaking"]


def test_a_fix_entry_beside_a_feature_entry_is_still_a_fix():
    notes = (NotesChange("CHANGES.rst", CHANGES_RST, (4, 5)),)
    assert judge(replace(PLAIN, notes=notes)).verdict == "bugfix"


NEW_API_AFTER = "def area(w, h):\n    return w * h\n\n\ndef volume(w, h, d):\n    return w * h * d\n"
NEW_API_TESTS = ("from shapes import area, volume\n\n\ndef test_area():\n    assert area(2, 3) == 6\n\n\n"
                 "def test_volume():\n    assert volume(1, 2, 3) == 6\n")


def test_tests_that_need_a_new_public_name_make_a_feature_even_under_a_fix_title():
    change = replace(PLAIN, title="fix: shapes", source_after=(("shapes.py", NEW_API_AFTER),),
                     tests_after=(("tests/test_s.py", NEW_API_TESTS),),
                     fail_to_pass=("tests/test_s.py::test_volume",))
    judged = judge(change)
    assert (judged.verdict, judged.signals) == ("feature", ("new-api:1/1", "title:bugfix"))
    both = replace(change, fail_to_pass=("tests/test_s.py::test_area", "tests/test_s.py::test_volume[big]"))
    assert judge(both).verdict == "feature"  # 1 of 2: the share that makes a feature (parameters ignored)
    three = replace(both, fail_to_pass=both.fail_to_pass + ("tests/test_s.py::test_missing",))
    assert judge(three).verdict == "feature"  # 1 of 3 needs it, and only the title calls it a fix
    filed = replace(three, changed_paths=three.changed_paths + ("changes/12.bugfix.rst",))
    assert judge(filed).verdict == "bugfix"  # 1 of 3, and the project files it as a fix


TURNED_BEFORE = "def test_area():\n    assert area(2, 3) == 5\n"
TURNED_AFTER = "def test_area():\n    assert area(2, 3) == 6\n"


def test_existing_tests_rewritten_in_their_literals_make_a_change_unless_the_project_files_a_fix():
    change = replace(PLAIN, title="Fix area", tests_before=(("tests/test_s.py", TURNED_BEFORE),),
                     tests_after=(("tests/test_s.py", TURNED_AFTER),))
    judged = judge(change)
    assert (judged.verdict, judged.signals) == ("change", ("changed-expectation:1/1", "title:bugfix"))
    filed = replace(change, changed_paths=change.changed_paths + ("changes/12.bugfix.rst",))
    assert judge(filed).verdict == "bugfix"  # the project says its old test was wrong


def test_a_refactoring_or_ci_title_whose_tests_flip_is_a_change():
    for title in ("perf: faster area", "Tox GH Action (#286)", "Replace deprecated markup"):
        assert judge(replace(PLAIN, title=title)).verdict == "change", title


def test_a_misc_or_docs_fragment_files_the_change_apart_from_the_fixes():
    for fragment in ("changelog.d/935.misc.rst", "changes/12.doc.md", "newsfragments/3.deprecation"):
        judged = judge(replace(PLAIN, title="Fix area", changed_paths=PLAIN.changed_paths + (fragment,)))
        assert (judged.verdict, judged.signals) == ("change", ("project:change", "title:bugfix")), fragment


VALUED_BEFORE = 'class Cache:\n    def expire(self):\n        """Drop old items."""\n        self.items.clear()\n'
VALUED_AFTER = ('class Cache:\n    def expire(self):\n        """Drop old items, return them."""\n'
                "        gone = list(self.items)\n        self.items.clear()\n        return gone\n")
VALUED_TESTS = "def test_expire():\n    assert Cache().expire() == []\n"
PARAMETER_TESTS = "def test_lines():\n    assert lines(open('f', 'rb'), encoding='utf-8') == []\n"


def test_a_method_no_class_had_is_new_even_beside_a_module_function_of_that_name():
    before = "def parse(text):\n    return text\n\n\nclass Version:\n    def bump(self):\n        pass\n"
    after = before + "\n    @staticmethod\n    def parse(text):\n        return Version()\n"
    tests = "def test_parse():\n    assert Version.parse('1.0')\n"
    change = replace(PLAIN, source_before=(("v.py", before),), source_after=(("v.py", after),),
                     tests_after=(("tests/test_s.py", tests),), fail_to_pass=("tests/test_s.py::test_parse",))
    assert (judge(change).verdict, judge(change).signals) == ("feature", ("new-api:1/1",))
    override = "class Base:\n    def parse(self):\n        pass\n\n\nclass Version(Base):\n    def bump(self):\n        pass\n"
    fixed = override + "\n    def parse(self):\n        return 1\n"  # a subclass overriding what Base had
    assert judge(replace(change, source_before=(("v.py", override),), source_after=(("v.py", fixed),))).verdict == "unclear"


def test_tests_that_need_something_new_make_a_feature_even_where_the_project_files_a_fix():
    change = replace(PLAIN, changed_paths=PLAIN.changed_paths + ("changes/12.bugfix.rst",),
                     source_after=(("shapes.py", NEW_API_AFTER),), tests_after=(("tests/test_s.py", NEW_API_TESTS),),
                     fail_to_pass=("tests/test_s.py::test_volume",))
    assert (judge(change).verdict, judge(change).signals) == ("feature", ("project:bugfix", "new-api:1/1"))


def test_tests_that_need_a_new_return_value_or_parameter_make_a_feature_under_a_fix_title():
    valued = replace(PLAIN, title="Fix the expire() result (#292)",
                     source_before=(("c.py", VALUED_BEFORE),), source_after=(("c.py", VALUED_AFTER),),
                     tests_after=(("tests/test_s.py", VALUED_TESTS),), fail_to_pass=("tests/test_s.py::test_expire",))
    judged = judge(valued)
    assert (judged.verdict, judged.signals) == ("feature", ("new-api:1/1", "new-return-value:expire", "title:bugfix"))
    parameter = replace(PLAIN, title="fix: bytes files", source_before=(("m.py", "def lines(f):\n    pass\n"),),
                        source_after=(("m.py", "def lines(f, encoding=None):\n    pass\n"),),
                        tests_after=(("tests/test_s.py", PARAMETER_TESTS),), fail_to_pass=("tests/test_s.py::test_lines",))
    judged = judge(parameter)
    assert (judged.verdict, judged.signals) == ("feature", ("new-api:1/1", "new-parameter:encoding", "title:bugfix"))


MESSAGE_AFTER = ("def area(w, h):\n    if w < 0:\n        raise ValueError('width must not be negative')\n"
                 "    return _times(w, h)\n\n\ndef _times(a, b):\n    return a * b\n")
PINNING_TESTS = ("import pytest\nfrom shapes import area, _times\n\n\ndef test_area():\n    assert _times(2, 3) == 6\n\n\n"
                 "def test_negative():\n    with pytest.raises(ValueError, match='width must not be negative'):\n"
                 "        area(-1, 1)\n\n\ndef test_plain():\n    assert area(2, 3) == 6\n")


def test_tests_pinning_a_private_name_or_a_message_of_the_fix_are_over_specified():
    change = replace(PLAIN, source_after=(("shapes.py", MESSAGE_AFTER),), tests_after=(("tests/test_s.py", PINNING_TESTS),),
                     fail_to_pass=("tests/test_s.py::test_area", "tests/test_s.py::test_negative",
                                   "tests/test_s.py::test_plain"))
    judged = judge(change)
    assert judged.over_specified == ("tests/test_s.py::test_area", "tests/test_s.py::test_negative")
    assert not judged.pins_only_this_fix(change.fail_to_pass)  # test_plain: another correct fix passes it
    assert judged.pins_only_this_fix(change.fail_to_pass[:2])


PATTERN_TESTS = ("import pytest\n\n\nclass TestArea:\n    @pytest.mark.parametrize('w, reason', [\n"
                 "        (-1, '.*must not be negative.*'),\n    ])\n    def test_negative(self, w, reason):\n"
                 "        with pytest.raises(ValueError, match=reason):\n            area(w, 1)\n")


def test_a_decorated_test_quoting_the_fixs_message_as_a_pattern_is_over_specified():
    change = replace(PLAIN, source_after=(("shapes.py", MESSAGE_AFTER),), tests_after=(("tests/test_s.py", PATTERN_TESTS),),
                     fail_to_pass=("tests/test_s.py::TestArea::test_negative[-1-x]",))
    assert judge(change).over_specified == ("tests/test_s.py::TestArea::test_negative[-1-x]",)
    # the pattern's words inside a plain literal, with no anchors and not matched against: no pin
    plain = PATTERN_TESTS.replace("'.*must not be negative.*'", "'must not be negative'")
    assert judge(replace(change, tests_after=(("tests/test_s.py", plain),))).over_specified == ()


def test_titles():
    assert [title_category(t) for t in ("fix: nicer debug output", "feat: volume", "Add volume", "Support tuples",
                                        "Handle empty input", "Speed up area", "Fix slow area", "Regression in 2.0",
                                        "New unit tests")] == [
        "bugfix", "feature", "feature", "feature", "", "refactor", "bugfix", "bugfix", ""]
    # GitHub's closing keywords name an issue of any kind: what is left of the title decides
    assert [title_category(t) for t in ("Fix #159: Pass self to the key function", "Fixes #3, closes #4: crash on load",
                                        "Resolve #9: add a volume")] == ["", "bugfix", "feature"]
    merge = "Merge pull request #7 from someone/fix-negative-width"
    assert readable_title(merge, f"{merge}\n\nReject negative widths\n") == "Reject negative widths fix negative width"
    assert title_category(readable_title(merge, merge)) == "bugfix"


OLD_STYLE_TESTS = ("import unittest\nfrom shapes import area\n\n\nclass T(unittest.TestCase):\n"
                   "    def test_old(self):\n        self.assertEqual(area(1, 1), 1)\n\n"
                   + "".join(f"    def test_new{n}(self):\n        self.assertEquals(area({n}, 2), {2 * n})\n\n"
                             for n in range(3)))
OLD_STYLE_BEFORE = ("import unittest\nfrom shapes import area\n\n\nclass T(unittest.TestCase):\n"
                    "    def test_old(self):\n        self.assertEqual(area(1, 1), 1)\n")


def test_the_changes_own_tests_that_fail_with_the_fix_are_counted_and_most_of_them_failing_is_flagged():
    ids = [f"tests/test_s.py::T::test_new{n}" for n in range(3)] + ["tests/test_s.py::T::test_old"]
    change = replace(PLAIN, tests_before=(("tests/test_s.py", OLD_STYLE_BEFORE),),
                     tests_after=(("tests/test_s.py", OLD_STYLE_TESTS),), fail_to_pass=(ids[0],),
                     observed=tuple(ids), fix_side_failing=(ids[1], ids[2], ids[3]))
    judged = judge(change)
    # test_old is not the change's (unchanged), so its failure does not count; two of the three new ones fail
    assert (judged.own_tests, judged.own_tests_failing) == (3, (ids[1], ids[2]))
    assert "own-tests-failing-with-fix:2/3" in judged.signals and judged.mostly_failing_own_tests
    one_failing = judge(replace(change, fix_side_failing=(ids[1],)))
    assert (one_failing.own_tests_failing, one_failing.mostly_failing_own_tests) == ((ids[1],), False)
    assert judge(PLAIN).to_json()["own_tests"] == 1  # the one new test, passing with the fix
    from bench.spec.model import Judgement  # a judgement without counted tests keeps the bytes it had

    assert Judgement("bugfix").to_json().keys() == {"verdict", "signals", "over_specified", "version"}
