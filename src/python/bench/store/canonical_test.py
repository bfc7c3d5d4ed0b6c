from bench.store.canonical import canonical_json, sha256_of


def test_canonical_json_sorts_keys_and_keeps_unicode():
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode("utf-8")


def test_sha256_of_is_independent_of_key_order():
    assert sha256_of({"a": 1, "b": [1, 2]}) == sha256_of({"b": [1, 2], "a": 1})
