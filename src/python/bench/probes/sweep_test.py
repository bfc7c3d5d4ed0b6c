"""The sweep's chosen values for the classes of input the readings of surviving near misses named: options the
tests never pass, typed by their annotations; a str as an iterator; an int as a half; a dict one entry short;
a protocol's own delimiters in bytes."""

from __future__ import annotations

import json

from bench.probes.generate import types_of
from bench.probes.own_code import annotated_types_of
from bench.probes.strategies import Seeds
from bench.probes.sweep import Typed, swept


def text(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


GROUP = '''
import typing as t


class Group:
    def __init__(self, name, no_args_is_help: bool | None = None, depth: "t.Optional[int]" = None,
                 names: list[str] = (), callback: t.Callable[[], None] | None = None):
        if no_args_is_help is None:
            no_args_is_help = True
        self.no_args_is_help = no_args_is_help
'''


def test_an_annotation_names_the_outer_types_of_a_parameter():
    assert annotated_types_of(GROUP, "Group.__init__") == {
        "no_args_is_help": ("bool", "NoneType"), "depth": ("int", "NoneType"), "names": ("list",),
        "callback": ("Callable", "NoneType")}


def test_an_option_the_tests_never_pass_is_given_each_value_of_its_annotated_type_both_flags_too():
    """click's ``Group('g', no_args_is_help=False)`` keeps the flag off; a wrong fix that tests another
    variable for None turned it on, and no test ever passed the option."""
    observed = [(text(["l", [["~"], ["s", "g"]]]), text(["d", []]))]
    typed = Typed(types_of(GROUP, "Group.__init__"), ("self", "name", "no_args_is_help", "depth", "names",
                                                       "callback"))
    calls = {k for _, k in swept(observed, Seeds("g"), 40, set(observed), first=1, typed=typed)}
    given = {(key[1], text(value)) for k in calls for key, value in json.loads(k)[1]}
    assert {("no_args_is_help", text(["b", True])), ("no_args_is_help", text(["b", False])),
            ("depth", text(["i", "1"])), ("names", text(["l", []]))} <= given


def test_the_sweep_hands_a_str_over_as_its_characters_an_int_as_a_half_and_a_dict_one_entry_short():
    """``build_codes(iter(""))`` (an iterator is truthy where an empty str is not), ``next_power_of_two(0.5)``,
    ``pm.hook.h()`` called without one of the arguments its hook names."""
    observed = [(text(["l", [["s", "ab"], ["i", "3"], ["d", [[["s", "x"], ["i", "1"]], [["s", "y"], ["i", "2"]]]]]]),
                 text(["d", []]))]
    calls = {a for a, _ in swept(observed, Seeds("ab"), 40, set(observed), first=0)}
    rest = [["i", "3"], ["d", [[["s", "x"], ["i", "1"]], [["s", "y"], ["i", "2"]]]]]
    assert text(["l", [["it", [["s", "a"], ["s", "b"]]], *rest]]) in calls
    assert text(["l", [["s", "ab"], ["f", "0.5"], rest[1]]]) in calls
    assert text(["l", [["s", "ab"], ["i", "3"], ["d", [[["s", "x"], ["i", "1"]]]]]]) in calls
    assert text(["l", [["s", "ab"], ["i", "3"], ["d", []]]]) in calls


def test_bytes_a_live_argument_holds_are_set_to_the_codes_bytes_literals_and_led_by_them():
    """h11's ``ReceiveBuffer.maybe_extract_next_line()`` looks for ``b"\\r\\n"`` in the buffer it holds; a
    search begun one byte late is told apart only by a buffer that starts with the terminator."""
    held = b"abc\r\n"
    live = ["~", [[["s", "_data"], ["Y", held.hex()]]]]
    observed = [(text(["l", [live]]), text(["d", []]))]
    seeds = Seeds("abc", bytes_=(b"\r\n",))
    calls = {a for a, _ in swept(observed, seeds, 20, set(observed), first=1)}
    assert text(["l", [["~", [[["s", "_data"], ["Y", b"\r\n".hex()]]]]]]) in calls
    assert text(["l", [["~", [[["s", "_data"], ["Y", (b"\r\n" + held).hex()]]]]]]) in calls


PARSER = '''
def loads(text):
    return _Parser(text).value()


class _Parser:
    def escape(self, value, low):
        if 0xD800 <= value < 0xDC00 and 0xDC00 <= low < 0xE000:
            return 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        return value
'''


def test_a_number_a_text_spells_is_set_to_a_bound_of_its_module_near_it_before_any_further_one():
    """A JSON text's ``"\\ud83d\\ude00"`` meets the parser's ``0xDC00`` bound as ``"\\udbff\\ude00"``; the
    bound sits in a helper, not in ``loads``. Thirty texts of plain digits observed before it leave it
    within the sweep's budget: the nearest moves come first."""
    from bench.probes.own_code import text_numbers_of

    numbers = text_numbers_of(PARSER, "loads")
    assert 0xDBFF in numbers and 0xDC00 in numbers and 0x10000 in numbers
    plain = [(text(["l", [["s", f"[{n}, {n + 1}]"]]]), text(["d", []])) for n in range(30)]
    surrogate = (text(["l", [["s", '"\\ud83d\\ude00"']]]), text(["d", []]))
    calls = {a for a, _ in swept([*plain, surrogate], Seeds("[]0123456789", text_numbers=numbers), 40,
                                 set(plain) | {surrogate}, first=0)}
    assert text(["l", [["s", '"\\udbff\\ude00"']]]) in calls
    assert text(["l", [["s", '"\\ud83d\\udbff"']]]) in calls
    assert text(["l", [["s", '"\\ud83d\\udc00"']]]) in calls


def test_an_int_place_is_given_the_codes_float_constants():
    """``convert(-1, "K", "K")`` in the tests; the bound is ``kelvin < -1e-9``, met only at ``-1e-9``."""
    observed = [(text(["l", [["i", "-1"], ["s", "K"], ["s", "K"]]]), text(["d", []]))]
    calls = {a for a, _ in swept(observed, Seeds("K", floats=(-1e-09, 1e-09)), 40, set(observed), first=0)}
    assert text(["l", [["f", "-1e-09"], ["s", "K"], ["s", "K"]]]) in calls


def test_a_sequence_is_given_none_for_its_first_and_last_item_and_before_its_first_and_bytes_are_cut_short():
    """``combination_index((None,), ...)``: an element whose first item is None reads as an empty element to
    a rewrite that tests the item for None instead of the index; a substrate one octet short of the length it
    declares."""
    observed = [(text(["l", [["t", [["i", "2"], ["i", "3"]]], ["y", b"\x02\x01\x05".hex()]]]), text(["d", []]))]
    calls = {a for a, _ in swept(observed, Seeds("23"), 40, set(observed), first=0)}
    substrate = ["y", b"\x02\x01\x05".hex()]
    assert text(["l", [["t", [["N"], ["i", "3"]]], substrate]]) in calls
    assert text(["l", [["t", [["i", "2"], ["N"]]], substrate]]) in calls
    assert text(["l", [["t", [["N"], ["i", "2"], ["i", "3"]]], substrate]]) in calls
    pair = ["t", [["i", "2"], ["i", "3"]]]
    assert text(["l", [pair, ["y", b"\x02\x01".hex()]]]) in calls
    assert text(["l", [pair, ["y", ""]]]) in calls


def test_a_live_arguments_timedelta_is_made_zero_negative_and_a_minute_longer():
    """parse's ``FixedTzOffset.__eq__``: two offsets of one name differ only in their timedelta; a rewrite that
    joins the two comparisons with ``or`` answers them equal."""
    other = ["~", [[["s", "_name"], ["s", "UTC+1"]], [["s", "_offset"], ["td", 0, 3600, 0]]]]
    observed = [(text(["l", [["~"], other]]), text(["d", []]))]
    calls = {a for a, _ in swept(observed, Seeds("UTC+1"), 40, set(observed), first=1)}
    for offset in (["td", 0, 0, 0], ["td", -1, 82800, 0], ["td", 0, 3660, 0]):
        assert text(["l", [["~"], ["~", [[["s", "_offset"], offset]]]]]) in calls


def test_the_other_side_of_a_live_selfs_comparison_is_a_twin_of_it_alike_and_one_attribute_changed():
    """parse's ``FixedTzOffset.__eq__`` is only ever given None and "spam" by the tests; a rewrite that joins
    its two comparisons with ``or`` is told apart by an offset of the same name and another length."""
    self_ = ["~", [[["s", "_name"], ["s", "UTC"]], [["s", "_offset"], ["td", 0, 0, 0]]]]
    observed = [(text(["l", [self_, ["N"]]]), text(["d", []]))]
    calls = {a for a, _ in swept(observed, Seeds("UTC"), 40, set(observed), first=1)}
    assert text(["l", [self_, ["~self", []]]]) in calls
    assert text(["l", [self_, ["~self", [[["s", "_offset"], ["td", 0, 60, 0]]]]]]) in calls


def test_a_self_written_whole_has_its_bytes_led_by_the_codes_delimiter_as_a_live_one_has():
    """h11's ReceiveBuffer is recorded whole (not live); a fix that searches for the line break from one past
    the start is told apart only by a buffer that opens with it, and the sweep never reached its attributes."""
    buffer = ["o", "h11._receivebuffer:ReceiveBuffer", [["_data", ["Y", b"a\r\n".hex()]],
                                                        ["_next_line_search", ["i", "0"]]]]
    observed = [(text(["l", [buffer]]), text(["d", []]))]
    calls = {a for a, _ in swept(observed, Seeds("a", bytes_=(b"\r\n",)), 40, set(observed), first=1)}
    led = ["o", buffer[1], [["_data", ["Y", b"\r\na\r\n".hex()]], ["_next_line_search", ["i", "0"]]]]
    assert text(["l", [led]]) in calls


def test_a_place_is_given_the_values_of_its_type_the_other_functions_of_its_file_were_given():
    """grid_maze's ``reachable_count`` was only ever given mazes whose goal can be reached; ``shortest_path``'s
    tests hold one whose goal cannot, and a fix counting from the goal differs only there."""
    from bench.probes.relations import slot_values

    observed = [(text(["l", [["l", [["s", "S.G"]]]]]), text(["d", []]))]
    kin = slot_values([(text(["l", [["l", [["s", "S#G"]]]]]), text(["d", []])),
                       (text(["l", [["i", "3"]]]), text(["d", []]))])
    calls = {a for a, _ in swept(observed, Seeds("SG.#"), 40, set(observed), first=0, kin=kin)}
    assert text(["l", [["l", [["s", "S#G"]]]]]) in calls
    assert text(["l", [["i", "3"]]]) not in calls  # another type: not the same kind of place


def test_a_dotted_text_is_shortened_by_a_part_and_by_two():
    """semver_ranges' ``satisfies("0.5.0", "^0")``: the tests wrote ``^0.2.3``, and a bare major 0 is where
    a fix taking the minor as always given fails."""
    observed = [(text(["l", [["s", "0.3.0"], ["s", "^0.2.3"]]]), text(["d", []]))]
    calls = {a for a, _ in swept(observed, Seeds("^0123."), 60, set(observed), first=0)}
    assert text(["l", [["s", "0.3.0"], ["s", "^0"]]]) in calls
    assert text(["l", [["s", "0.3.0"], ["s", "^0.2"]]]) in calls


def test_a_list_of_dicts_and_a_dict_are_nested_in_themselves_one_level_deeper():
    """tomlkit's ``item([{"a": [{"b": 1}]}])``: the tests nest a list of tables in a table only at the top."""
    observed = [(text(["l", [["l", [["d", [[["s", "a"], ["i", "1"]]]]]], ["d", [[["s", "k"], ["s", "v"]]]]]]),
                 text(["d", []]))]
    calls = {a for a, _ in swept(observed, Seeds("akv"), 80, set(observed), first=0)}
    inner = ["l", [["d", [[["s", "a"], ["i", "1"]]]]]]
    deeper = ["l", [["d", [[["s", "a"], inner]]]]]
    assert text(["l", [deeper, ["d", [[["s", "k"], ["s", "v"]]]]]]) in calls
    own = ["d", [[["s", "k"], ["s", "v"]]]]
    assert text(["l", [inner, ["d", [[["s", "k"], own]]]]]) in calls


def test_a_grid_of_ints_is_blanked_but_for_its_first_and_last_row_and_column():
    """sudoku_solver's fix builds its column sets over ``range(8)``: the tests' puzzles are decided without
    row 8's givens, and a grid holding nothing but its last row is decided by them alone."""
    grid = ["l", [["l", [["i", "1"], ["i", "0"], ["i", "2"]]], ["l", [["i", "0"], ["i", "3"], ["i", "0"]]],
                  ["l", [["i", "4"], ["i", "0"], ["i", "5"]]]]]
    observed = [(text(["l", [grid]]), text(["d", []]))]
    calls = {a for a, _ in swept(observed, Seeds("0"), 80, set(observed), first=0)}
    zero = ["i", "0"]
    last_row = ["l", [["l", [zero, zero, zero]], ["l", [zero, zero, zero]], ["l", [["i", "4"], zero, ["i", "5"]]]]]
    last_column = ["l", [["l", [zero, zero, ["i", "2"]]], ["l", [zero, zero, zero]], ["l", [zero, zero, ["i", "5"]]]]]
    assert text(["l", [last_row]]) in calls and text(["l", [last_column]]) in calls


def test_a_tuple_item_is_given_the_types_the_code_checks_the_name_it_is_unpacked_into_against():
    """boltons' ``daterange`` unpacks ``y_step, m_step, d_step = step`` and checks ``isinstance(d_step,
    timedelta)``: a fix checking ``step`` there differs only for a tuple whose day is a timedelta."""
    from bench.probes.own_code import checked_types_of, parameters_of

    source = ("from datetime import timedelta\n\ndef daterange(start, stop, step=1):\n"
              "    try:\n        y_step, m_step, d_step = step\n    except TypeError:\n        d_step = step\n"
              "    if isinstance(d_step, int):\n        return d_step\n"
              "    elif isinstance(d_step, timedelta):\n        return d_step\n    raise ValueError(step)\n")
    kinds = checked_types_of(source, "daterange")
    assert kinds["step[2]"] == ("int", "timedelta") and "step[0]" not in kinds
    typed = Typed(kinds, *parameters_of(source, "daterange"))
    observed = [(text(["l", [["i", "1"], ["i", "5"]]]), text(["d", [[["s", "step"], ["t", [["i", "0"], ["i", "1"],
                                                                                          ["i", "2"]]]]]]))]
    calls = {k for _, k in swept(observed, Seeds("0"), 80, set(observed), first=0, typed=typed)}
    assert text(["d", [[["s", "step"], ["t", [["i", "0"], ["i", "1"], ["td", 2, 0, 0]]]]]]) in calls


def test_a_live_list_of_its_own_is_emptied_and_cut_to_each_of_its_items_alone():
    """pluggy-472's wrong fix stops its walk one implementation early: it shows only where the hook's one
    implementation is ``tryfirst``, which the test's hook holds in its middle, neither first nor last."""
    observed = [(text(["l", [["~", [[["s", "_hookimpls"], ["~cut", 0, 3]]]], ["~"]]]), text(["d", []]))]
    calls = {a for a, _ in swept(observed, Seeds("x"), 40, set(observed), first=1)}
    cuts = {json.dumps(json.loads(a)[1][0][1][0][1]) for a in calls if json.loads(a)[1][0][1]}
    assert cuts >= {json.dumps(["~cut", 0, 0]), json.dumps(["~cut", 0, 1]), json.dumps(["~cut", 1, 2]),
                    json.dumps(["~cut", 2, 3])}


def test_numbers_made_equal_take_at_most_one_call_in_every_few_of_the_sweep():
    """As one place among two, a game of bowling's rolls made equal took half the sweep and displaced the
    one-place changes (a game one frame short) that had found a wrong fix."""
    from bench.probes.equal_numbers import equal_number_changes
    from bench.probes.sweep import EQUAL_EVERY

    observed = [(text(["l", [["l", [["i", str(n)] for n in (10, 7, 3, 9, 0, 10, 10, 2, 8)]]]]), text(["d", []]))]
    equal = {a for _, _, (a, _) in equal_number_changes(*observed[0])}
    calls = [a for a, _ in swept(observed, Seeds("0"), 24, set(observed), first=0)]
    one_place = [i for i, a in enumerate(calls) if a not in equal]
    assert len(equal) > 24 and len(one_place) >= 4
    # every one-place change comes before the equal ones could have taken more than their share; the rest after
    assert one_place[-1] < len(one_place) * EQUAL_EVERY // (EQUAL_EVERY - 1) + 1


def test_a_rows_second_cell_is_set_to_the_marker_a_module_constant_holds():
    """tabulate's ``_is_separating_line(row)`` checks a row's first cell and, after the fix, its second against
    ``SEPARATING_LINE``, a module constant its helper names: the tests put the marker in the first cell alone,
    and the wrong fix that checks the first twice passed. The constant is now among the code's literals, and a
    list's first items are each set to them."""
    from bench.probes.own_code import constants_of

    source = '''
SEPARATING_LINE = "\\001"


def _is_separating_line_value(value):
    return type(value) is str and value.strip() == SEPARATING_LINE


def _is_separating_line(row):
    return len(row) >= 1 and _is_separating_line_value(row[0]) or len(row) >= 2 and _is_separating_line_value(row[1])
'''
    assert constants_of(source, "_is_separating_line")[1] == ("\x01",)
    seeds = Seeds("ab", strings=constants_of(source, "_is_separating_line")[1])
    observed = [(text(["l", [["l", [["s", "a"], ["s", "b"]]]]]), text(["d", []]))]
    calls = {a for a, _ in swept(observed, seeds, 80, set(observed), first=0)}
    assert text(["l", [["l", [["s", "a"], ["s", "\x01"]]]]]) in calls
    assert text(["l", [["l", [["s", "\x01"], ["s", "b"]]]]]) in calls


def test_a_module_constant_the_function_never_names_is_not_among_its_literals():
    from bench.probes.own_code import constants_of

    source = 'UNUSED = "zz"\nLIMIT = -7\n\ndef f(x):\n    return x < LIMIT\n'
    assert constants_of(source, "f") == ((-8, -7, -6), ())


NESTED = '''
class Nested:
    @property
    def schema(self):
        if not self._schema:
            if isinstance(self.nested, str):
                if self.nested == "self":
                    self._schema = self.parent
                else:
                    self._schema = lookup(self.nested)
            else:
                self._schema = self.nested
        return self._schema
'''


def test_an_attribute_the_code_checks_that_the_site_could_not_write_is_given_a_str_and_the_codes_literals():
    """marshmallow-1627: every test's ``Nested`` field held a schema in ``nested``, which no codec writes, so
    the site never listed it and the branch for a schema named by a str (``"self"`` too) was never taken.
    The attribute is set where the code checks its type, and the memo ``_schema`` the method answers from is
    cleared with it (``if not self._schema``): otherwise the site answers the schema the tests made."""
    from bench.probes.generate import types_of
    from bench.probes.own_code import constants_of, memo_attributes_of, parameters_of

    typed = Typed(types_of(NESTED, "Nested.schema"), *parameters_of(NESTED, "Nested.schema"),
                  memo_attributes_of(NESTED, "Nested.schema"))
    assert typed.memos == ("_schema",)
    seeds = Seeds("a", strings=constants_of(NESTED, "Nested.schema")[1])
    observed = [(text(["l", [["~", [[["s", "name"], ["s", "child"]]]]]]), text(["d", []]))]
    calls = {a for a, _ in swept(observed, seeds, 80, set(observed), first=1, typed=typed)}
    cleared = [["s", "_schema"], ["N"]]
    assert text(["l", [["~", [[["s", "nested"], ["s", "self"]], cleared]]]]) in calls
    assert text(["l", [["~", [[["s", "nested"], ["s", "a"]], cleared]]]]) in calls
    # an attribute the site wrote is changed as before, the memo cleared with it
    assert text(["l", [["~", [[["s", "name"], ["s", "self"]], cleared]]]]) in calls
    unchecked = swept(observed, seeds, 80, set(observed), first=1, typed=Typed(names=("self",)))
    assert unchecked and not any('"nested"' in args for args, _ in unchecked)


def test_a_counter_the_method_sets_and_reads_is_no_memo_and_is_never_cleared():
    from bench.probes.own_code import memo_attributes_of

    source = '''
class Cache:
    def get(self, key):
        self.hits += 1
        if self._last is None or self._last[0] != key:
            self._last = (key, self.data[key])
        return self._last[1]
'''
    assert memo_attributes_of(source, "Cache.get") == ("_last",)
