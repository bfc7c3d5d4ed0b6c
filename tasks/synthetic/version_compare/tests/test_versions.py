import pytest

import versions


def test_equal_versions():
    assert versions.compare("1.2.3", "1.2.3") == 0


def test_simple_ordering():
    assert versions.compare("1.2.3", "1.3.0") == -1
    assert versions.compare("2.0", "1.9.9") == 1


def test_parts_compare_numerically():
    assert versions.compare("1.10", "1.9") == 1
    assert versions.compare("1.2.10", "1.2.9") == 1


def test_missing_parts_are_zero():
    assert versions.compare("1.0", "1") == 0
    assert versions.compare("1.0.0", "1.0") == 0
    assert versions.compare("1.0.1", "1") == 1


def test_pre_release_is_lower():
    assert versions.compare("1.0-rc.1", "1.0") == -1
    assert versions.compare("1.0", "1.0-alpha") == 1


def test_pre_release_identifiers():
    assert versions.compare("1.0-alpha.2", "1.0-alpha.10") == -1
    assert versions.compare("1.0-alpha", "1.0-alpha.1") == -1
    assert versions.compare("1.0-1", "1.0-alpha") == -1
    assert versions.compare("1.0-beta", "1.0-alpha.9") == 1


def test_invalid_versions_rejected():
    for bad in ("", "1.", "a.b", "1.0-", "1..2", "v1.0"):
        with pytest.raises(ValueError):
            versions.compare(bad, "1.0")


def test_sort_is_numeric_and_stable():
    data = ["1.10", "1.2", "1.0", "1", "1.2-rc.1", "0.9"]
    assert versions.sort_versions(data) == ["0.9", "1.0", "1", "1.2-rc.1", "1.2", "1.10"]
