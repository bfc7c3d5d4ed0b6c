import pytest

import semrange


def test_invalid_versions():
    for bad in ("1.2", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.3+", "v1.2.3", "1.2.3.4"):
        with pytest.raises(ValueError):
            semrange.compare_versions(bad, "1.0.0")


def test_core_ordering_and_build_metadata():
    assert semrange.compare_versions("1.10.0", "1.9.9") == 1
    assert semrange.compare_versions("1.2.3+build.7", "1.2.3") == 0


def test_pre_release_precedence_chain():
    chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
             "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
    assert all(semrange.compare_versions(a, b) == -1 for a, b in zip(chain, chain[1:]))


def test_plain_comparators_and_or_sets():
    assert semrange.satisfies("1.2.3", ">=1.2.0 <2.0.0") is True
    assert semrange.satisfies("2.0.0", ">=1.2.0 <2.0.0") is False
    assert semrange.satisfies("3.1.0", "<1.0.0 || >=3.0.0") is True
    assert semrange.satisfies("1.2.3", "1.2.3") is True
    assert semrange.satisfies("9.9.9", "*") is True


def test_caret_with_major():
    assert [semrange.satisfies(v, "^1.2.3") for v in ("1.2.3", "1.9.0", "2.0.0", "1.2.2")] == [
        True, True, False, False]


def test_caret_with_zero_major():
    assert semrange.satisfies("0.2.9", "^0.2.3") is True
    assert semrange.satisfies("0.3.0", "^0.2.3") is False
    assert semrange.satisfies("0.0.3", "^0.0.3") is True
    assert semrange.satisfies("0.0.4", "^0.0.3") is False
    assert semrange.satisfies("0.1.0", "^0.0") is False


def test_tilde_and_bare_partials():
    assert semrange.satisfies("1.2.9", "~1.2.3") is True
    assert semrange.satisfies("1.3.0", "~1.2.3") is False
    assert semrange.satisfies("1.2.7", "1.2") is True
    assert semrange.satisfies("1.3.0", "1.2") is False
    assert semrange.satisfies("1.9.0", "~1") is True


def test_partials_with_comparison_operators():
    assert semrange.satisfies("1.2.5", ">1.2") is False
    assert semrange.satisfies("1.3.0", ">1.2") is True
    assert semrange.satisfies("1.2.9", "<=1.2") is True
    assert semrange.satisfies("1.9.0", ">1") is False
    assert semrange.satisfies("1.1.9", "<1.2") is True


def test_pre_releases_use_plain_precedence():
    assert semrange.satisfies("2.0.0-rc.1", "^1.2.3") is True
    assert semrange.satisfies("1.2.3-alpha", ">=1.2.3") is False


def test_max_satisfying():
    versions = ["1.2.3", "1.10.0", "1.9.1", "2.0.0-beta.2", "2.0.0-beta.10", "0.9.0"]
    assert semrange.max_satisfying(versions, "^1.0.0") == "2.0.0-beta.10"
    assert semrange.max_satisfying(versions, "~1.9") == "1.9.1"
    assert semrange.max_satisfying(versions, ">=3") is None


def test_malformed_ranges():
    for bad in (">=", "=> 1.0.0", ">= 1.0.0", "1.x", "^1.2.3.4", "a || 1.0.0"):
        with pytest.raises(ValueError):
            semrange.satisfies("1.0.0", bad)
