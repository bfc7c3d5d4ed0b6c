import querystring


def test_simple_pairs():
    assert querystring.parse_query("a=1&b=2") == {"a": ["1"], "b": ["2"]}


def test_repeated_keys_keep_order():
    assert querystring.parse_query("?x=3&y=0&x=1") == {"x": ["3", "1"], "y": ["0"]}


def test_empty_pieces_skipped():
    assert querystring.parse_query("&&a=1&") == {"a": ["1"]}


def test_plus_means_space_and_percent_plus_is_plus():
    assert querystring.parse_query("q=big+cat&sum=1%2B1") == {"q": ["big cat"], "sum": ["1+1"]}


def test_percent_decoding_utf8():
    assert querystring.parse_query("name=Jos%C3%A9") == {"name": ["José"]}


def test_value_containing_equals():
    assert querystring.parse_query("expr=a=b=c") == {"expr": ["a=b=c"]}


def test_piece_without_equals():
    assert querystring.parse_query("flag&v=1") == {"flag": [""], "v": ["1"]}


def test_build_query():
    assert querystring.build_query({"q": "a b", "t": ["1", "2"], "s": "x&y"}) == "q=a+b&t=1&t=2&s=x%26y"


def test_round_trip():
    data = {"k e y": ["va=l", "", "1+1"], "ü": ["%"], "z": ["&"]}
    assert querystring.parse_query(querystring.build_query(data)) == data
