from datetime import datetime, timezone

import pytest

from bench.environment.resolution_share import Released, Store, find_shared, releases_from_page, \
    same_resolution, share_key
from bench.errors import EnvironmentBuildError


def _at(day: str) -> datetime:
    return datetime.fromisoformat(day + "T12:00:00+00:00").astimezone(timezone.utc)


PAGES = {
    "pytest": (Released("7.0.0", _at("2022-02-03"), False), Released("7.1.0", _at("2022-03-13"), False),
               Released("7.2.0a1", _at("2022-04-01"), False), Released("7.2.0", _at("2022-10-25"), False)),
    "iniconfig": (Released("1.1.1", _at("2020-10-16"), False),),
    "pluggy": (Released("1.0.0", _at("2021-08-25"), False), Released("1.0.1", _at("2022-04-20"), True)),
}


def _listing(name):
    return PAGES[name]


PINS = (("pytest", "7.1.0"), ("iniconfig", "1.1.1"), ("pluggy", "1.0.0"))


def test_cutoffs_with_no_upload_of_a_pinned_project_between_them_share_the_resolution():
    assert same_resolution(PINS, "2022-05-01T00:00:00Z", "2022-09-30T00:00:00Z", _listing)
    assert same_resolution(PINS, "2022-09-30T00:00:00Z", "2022-05-01T00:00:00Z", _listing)  # either order


def test_an_upload_between_the_cutoffs_parts_them_even_a_yanked_or_pre_release_file():
    assert not same_resolution(PINS, "2022-05-01T00:00:00Z", "2022-11-01T00:00:00Z", _listing)  # pytest 7.2.0
    assert not same_resolution(PINS, "2022-03-20T00:00:00Z", "2022-04-10T00:00:00Z", _listing)  # 7.2.0a1
    assert not same_resolution(PINS, "2022-04-10T00:00:00Z", "2022-04-30T00:00:00Z", _listing)  # yanked pluggy


def test_a_pin_below_its_projects_newest_release_is_never_vouched_for():
    # pytest 7.0.0 pinned while 7.1.0 was out: a constraint or a backtrack chose it, and what the resolver
    # looked at to get there is not known.
    older = (("pytest", "7.0.0"), ("iniconfig", "1.1.1"), ("pluggy", "1.0.0"))
    assert not same_resolution(older, "2022-05-01T00:00:00Z", "2022-09-30T00:00:00Z", _listing)


def test_a_pre_release_pin_or_an_unreadable_file_name_is_never_vouched_for():
    assert not same_resolution((("pytest", "7.2.0a1"),), "2022-05-01T00:00:00Z", "2022-06-01T00:00:00Z", _listing)
    pages = dict(PAGES, iniconfig=PAGES["iniconfig"] + (Released("", _at("2019-01-01"), False),))
    assert not same_resolution(PINS, "2022-05-01T00:00:00Z", "2022-09-30T00:00:00Z", pages.__getitem__)
    assert not same_resolution((), "2022-05-01T00:00:00Z", "2022-09-30T00:00:00Z", _listing)


def test_a_pin_with_only_an_sdist_is_never_vouched_for():
    # pip reads its metadata by building it, with setuptools as of each cut-off: the two days may differ.
    pages = dict(PAGES, iniconfig=(Released("1.1.1", _at("2020-10-16"), False, wheel=False),))
    assert not same_resolution(PINS, "2022-05-01T00:00:00Z", "2022-09-30T00:00:00Z", pages.__getitem__)


def test_a_yanked_newest_release_does_not_count_as_the_newest():
    pins = (("pluggy", "1.0.0"),)
    assert same_resolution(pins, "2022-05-01T00:00:00Z", "2022-06-01T00:00:00Z", _listing)


def test_index_pages_are_read_with_versions_from_file_names_and_installers_left_out():
    page = {"files": [
        {"filename": "six-1.16.0-py2.py3-none-any.whl", "upload-time": "2021-05-05T14:18:17.123Z", "yanked": False},
        {"filename": "six-1.16.0.tar.gz", "upload-time": "2021-05-05T14:18:18Z", "yanked": "bad release"},
        {"filename": "six-1.0.0-py2.5.egg", "upload-time": "2010-01-01T00:00:00Z"},
        {"filename": "six-1.1.tar.bz2", "upload-time": "2011-01-01T00:00:00Z"},
    ]}
    files = releases_from_page(page)
    assert [(f.version, f.yanked, f.wheel) for f in files] == [
        ("1.16.0", False, True), ("1.16.0", True, False), ("", False, False)]
    with pytest.raises(EnvironmentBuildError, match="without an upload time"):
        releases_from_page({"files": [{"filename": "six-1.16.0.tar.gz"}]})


def test_the_share_key_parts_by_every_input_of_the_resolution():
    base = dict(python="3.13", tool_lock_sha256="t", inputs=(("pytest", "harness"),), dropped=(), project="p",
                title="T", late=())
    key = share_key(**base)
    assert key == share_key(**dict(base, inputs=(("pytest", "harness"),)))
    for part, other in (("python", "3.11"), ("tool_lock_sha256", "u"), ("inputs", (("pytest<8", "harness"),)),
                        ("dropped", (("x", "y"),)), ("project", "q"), ("title", "U"), ("late", ("pytest",))):
        assert share_key(**dict(base, **{part: other})) != key, part


def _entry(cutoff):
    return {"cutoff": cutoff, "text": "t", "project": "", "inputs": [], "dropped": [],
            "first_pass": [list(p) for p in PINS]}


def test_find_shared_takes_a_stored_resolution_only_where_the_index_vouches_and_the_build_floor_agrees(tmp_path):
    store = Store(tmp_path / "resolutions")
    assert store.entries("k") == []
    store.add("k", _entry("2022-05-01T00:00:00Z"))
    store.add("k", _entry("2022-05-01T00:00:00Z"))  # the same cut-off again replaces, never piles up
    assert len(store.entries("k")) == 1
    found = find_shared(store.entries("k"), "2022-09-30T00:00:00Z", "3.13", _listing)
    assert found is not None and found["cutoff"] == "2022-05-01T00:00:00Z"
    assert find_shared(store.entries("k"), "2022-11-01T00:00:00Z", "3.13", _listing) is None
    # Python 3.13 came out on 2024-10-07: a cut-off after it takes no build floor, one before it does.
    late = [_entry("2025-01-01T00:00:00Z")]
    assert find_shared(late, "2024-06-01T00:00:00Z", "3.13", lambda name: ()) is None


def test_an_index_that_cannot_be_read_vouches_for_nothing(tmp_path):
    def unreadable(name):
        raise EnvironmentBuildError("index page of pytest: HTTP 503")

    assert find_shared([_entry("2022-05-01T00:00:00Z")], "2022-09-30T00:00:00Z", "3.13", unreadable) is None


def test_a_cutoff_within_a_day_of_now_is_neither_shared_nor_remembered():
    from bench.environment.resolution_share import settled

    now = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
    assert settled("2026-12-06T11:59:59Z", now) and not settled("2026-12-06T12:00:01Z", now)
    assert not settled("2027-01-01T00:00:00Z", now)  # the future is "today" too
    assert find_shared([_entry("2022-05-01T00:00:00Z")], "2099-01-01T00:00:00Z", "3.13", _listing) is None


def test_only_a_wheel_that_fits_the_interpreter_vouches_for_a_pins_metadata():
    # PyYAML 6.0 had wheels up to CPython 3.10 only: on 3.13 pip builds its sdist, with build tools of the day.
    assert not same_resolution(PINS, "2022-05-01T00:00:00Z", "2022-09-30T00:00:00Z", _listing,
                               fits=lambda f: f.version != "1.1.1")
    assert same_resolution(PINS, "2022-05-01T00:00:00Z", "2022-09-30T00:00:00Z", _listing, fits=lambda f: True)


def test_a_damaged_stored_entry_vouches_for_nothing():
    damaged = [{"cutoff": "2022-05-01T00:00:00Z", "text": "t"}]  # no first_pass
    assert find_shared(damaged, "2022-09-30T00:00:00Z", "3.13", _listing) is None
