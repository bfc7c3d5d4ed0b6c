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
