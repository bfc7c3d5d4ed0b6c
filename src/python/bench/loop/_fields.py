"""Reading the fields of one JSON object of a score record with the types the record needs, and writing optional
ones back; every error names where the object is and which field is at fault (``bench.loop.records``)."""

from __future__ import annotations

import enum
import json
from typing import Any, Mapping, NoReturn, TypeVar

from bench.errors import CheckFailed
from bench.store.canonical import canonical_json

Pairs = tuple[tuple[str, str], ...]  # (key, value) in the order read
Choice = TypeVar("Choice", bound=enum.Enum)


class Fields:
    """One JSON object's fields. ``where`` names the record (``record 3``), ``what`` the kind of field
    (``field``, ``turn``), ``noun`` the object when it is not an object at all."""

    def __init__(self, data: Any, where: str, what: str = "field", noun: str = "a record") -> None:
        if not isinstance(data, Mapping):
            raise CheckFailed(f"{where}: {noun} must be a JSON object, got {type(data).__name__}")
        self.data, self.where, self.what = data, where, what

    def get(self, name: str) -> Any:
        return self.data.get(name)

    def fail(self, name: str, expected: str, value: Any) -> NoReturn:
        raise CheckFailed(f"{self.where}: {self.what} {name!r} must be {expected}, got {value!r}")

    def text(self, name: str, default: str | None = None) -> str:
        """A string; without a default a non-empty one is required, with one an absent or null field is it."""
        value = self.data.get(name)
        value = default if value is None else value
        if not isinstance(value, str) or (default is None and not value):
            self.fail(name, "a non-empty string" if default is None else "a string", value)
        return value

    def optional_text(self, name: str) -> str | None:
        value = self.data.get(name)
        if value is not None and not isinstance(value, str):
            self.fail(name, "a string", value)
        return value

    def integer(self, name: str, default: int | None = None) -> int:
        value = self.data.get(name)
        if value is None and default is not None:
            return default
        if not _is_int(value):
            self.fail(name, "an integer", value)
        return value

    def optional_integer(self, name: str) -> int | None:
        value = self.data.get(name)
        if value is not None and not _is_int(value):
            self.fail(name, "an integer", value)
        return value

    def flag(self, name: str, default: bool) -> bool:
        found = self.optional_flag(name)
        return default if found is None else found

    def optional_flag(self, name: str) -> bool | None:
        value = self.data.get(name)
        if value is not None and not isinstance(value, bool):
            self.fail(name, "true or false", value)
        return value

    def texts(self, name: str) -> tuple[str, ...] | None:
        value = self.data.get(name)
        if value is not None and not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
            self.fail(name, "a list of strings", value)
        return None if value is None else tuple(value)

    def integers(self, name: str) -> tuple[int, ...] | None:
        value = self.data.get(name)
        if value is not None and not (isinstance(value, list) and all(map(_is_int, value))):
            self.fail(name, "a list of integers", value)
        return None if value is None else tuple(value)

    def rows(self, name: str) -> tuple[tuple[str, ...], ...] | None:
        """A list of lists of strings (an attempt's ``results``: test id and outcome)."""
        value = self.data.get(name)
        if value is not None and not (isinstance(value, list) and all(
                isinstance(row, list) and all(isinstance(item, str) for item in row) for row in value)):
            self.fail(name, "a list of lists of strings", value)
        return None if value is None else tuple(tuple(row) for row in value)

    def string_pairs(self, name: str) -> Pairs:
        """An object whose values are strings (``integrity``), as (key, value) pairs; absent: none."""
        value = self.data.get(name)
        if value is None:
            return ()
        if not (isinstance(value, Mapping) and all(isinstance(item, str) for item in value.values())):
            self.fail(name, "an object of strings", value)
        return tuple(value.items())

    def choice(self, name: str, allowed: type[Choice], default: Choice | None = None) -> Choice:
        value = self.data.get(name)
        if value is None and default is not None:
            return default
        try:
            return allowed(value)
        except (ValueError, TypeError):
            self.fail(name, f"one of {tuple(member.value for member in allowed)}", value)

    def extra(self, known: tuple[str, ...]) -> Pairs:
        """The fields not in ``known``, each as its canonical JSON, to be written back as they were."""
        return tuple((key, canonical_json(value).decode("utf-8")) for key, value in self.data.items()
                     if key not in known)


def put(out: dict, name: str, value: Any) -> None:
    """Write an optional field: None means the record does not have it."""
    if value is not None:
        out[name] = value


def listed(values: tuple | None) -> list | None:
    return None if values is None else [list(item) if isinstance(item, tuple) else item for item in values]


def with_extra(out: dict, extra: Pairs) -> dict:
    out.update((key, json.loads(text)) for key, text in extra)
    return out


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
