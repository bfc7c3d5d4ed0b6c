from collections import Counter

import pytest

import huffman


def test_codes_follow_the_tie_rule():
    assert huffman.build_codes("abracadabra") == {"a": "0", "r": "10", "b": "110", "c": "1110", "d": "1111"}


def test_equal_weights():
    assert huffman.build_codes("dcba") == {"a": "00", "b": "01", "c": "10", "d": "11"}


def test_codes_are_prefix_free_and_optimal_length():
    text = "mississippi river"
    codes = huffman.build_codes(text)
    assert not any(a != b and b.startswith(a) for a in codes.values() for b in codes.values())
    counts = Counter(text)
    assert sum(counts[ch] * len(code) for ch, code in codes.items()) == 46


def test_round_trip():
    text = "she sells sea shells by the sea shore"
    codes = huffman.build_codes(text)
    assert huffman.decode(huffman.encode(text, codes), codes) == text


def test_single_distinct_character():
    codes = huffman.build_codes("zzzz")
    assert codes == {"z": "0"}
    assert huffman.encode("zz", codes) == "00"
    assert huffman.decode("000", codes) == "zzz"


def test_empty_text():
    assert huffman.build_codes("") == {}
    assert huffman.decode("", {}) == ""


def test_decode_rejects_bad_bits():
    codes = huffman.build_codes("abracadabra")
    for bad in ("0111", "1x0", "11"):
        with pytest.raises(ValueError):
            huffman.decode(bad, codes)


def test_encode_unknown_character():
    with pytest.raises(ValueError):
        huffman.encode("abz", huffman.build_codes("ab"))
