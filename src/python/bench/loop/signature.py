"""Fingerprints of a repair loop's states: the failing-state signature and the candidate digest.

The convergence classifier (``bench.loop.convergence``) never reads test output; it compares these two
strings between turns:

* :func:`candidate_digest` identifies the *code*: two turns with the same digest emitted byte-identical
  editable files (a STALL when it fails twice).
* :func:`failure_signature` identifies the *observed failing state*: whether the candidate compiles, which
  target tests fail, and the first meaningful error line. The same signature after the code changed is a
  recurrence (an OSCILLATION).

Normalising the error line (:func:`normalise_error_line`) is what makes "the same state" robust to noise that
varies between runs of identical code or between trivially different candidates:

* absolute paths are reduced to their last component (the workspace and pytest's tmp dirs differ per run);
* memory addresses (``0x7f3a9c...``, six or more hex digits) become ``0x_`` (they differ per process), and so
  does the tail of one that pytest's repr truncation cut inside or just after its ``0x``
  (``'<Obj...7fc82839d550>'``, ``<test_dicttoo...x7ff8181cdae0>``); ``id()`` values that reprs print in
  hex without ``0x`` (jinja2's ``<Template memory:7feed0d0ce90>``) become ``memory:_``, and those printed in
  decimal (``<cp33-cp33-plat @ 140650567543104>``, packaging's ``Tag``) become ``id_``. A line holding any of
  these never repeats across runs (the address differs per process), so each such rule changes only
  signatures that were never reproducible and ``SIGNATURE_VERSION`` stays: every signature that did repeat
  keeps its bytes;
* a quoted literal holding undecodable bytes (U+FFFD after decoding) becomes ``'<binary>'``: such bytes are
  random data in practice (requests' tests assert on ``os.urandom`` output), never a stable part of the state;
* **location line numbers are dropped** (``mod.py:42`` → ``mod.py``, ``line 42`` → ``line _``). An edit that
  inserts or deletes lines above the fault shifts every line number below it; keeping them would make one
  recurring failure look new after any such edit and hide limit cycles (an oscillation would be scored
  EXHAUSTED). The price is that two different faults with the same message and the same failing tests
  share a signature; the message and the failing ids are the state we care about, so we accept that;
* pytest's ``E`` gutter and runs of whitespace collapse to one space.

Numbers inside the message itself (``assert 3 == 4``) are kept: they are part of the failing state.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import PurePath
from typing import Iterable

SIGNATURE_VERSION = 1  # bump when the canonical encoding or the normalisation changes
MAX_ERROR_LINE_CHARS = 2000  # applied to the raw line before normalising, so normalising is idempotent

# A path segment: anything but whitespace, separators and the punctuation that delimits paths in messages.
_SEGMENT = r"[^\s/\\:'\"()\[\]<>,;]+"
# An absolute POSIX path, not part of a URL (``http://``) or of a relative path (``a/b``).
_POSIX_ABS = re.compile(rf"(?<![\w.:/~\\-])/(?:{_SEGMENT}/)*({_SEGMENT})")
_WINDOWS_ABS = re.compile(rf"\b[A-Za-z]:\\(?:{_SEGMENT}\\)*({_SEGMENT})")
_ADDRESS = re.compile(r"\b0[xX][0-9a-fA-F]{6,}\b")
# What pytest's saferepr leaves of ``<... object at 0x7fc82839d550>`` cut in the middle: ``...7fc82839d550>``.
# At least one digit, so a word of hex letters (``...face>``) is left alone.
_TRUNCATED_ADDRESS = re.compile(r"(\.\.\.)[xX]?(?=[a-fA-F]*[0-9])[0-9a-fA-F]{4,}>")
# jinja2 names an unnamed template by its id in hex: ``<Template memory:7feed0d0ce90>``.
_MEMORY_ID = re.compile(r"\b(memory:)[0-9a-fA-F]{6,}\b")
_DECIMAL_ID = re.compile(r"(@\s?)\d{9,}>")
_BINARY_LITERAL = re.compile("'[^'\n]*\ufffd[^'\n]*'|\"[^\"\n]*\ufffd[^\"\n]*\"")
# ``mod.py:42`` or ``mod.py:42:7`` (pytest --tb=line/short, flake-style) — but not ``mod.py::test`` node ids.
_FILE_LINENO = re.compile(r"(\.py[iwx]?)(?::\d+)+\b")
_LINE_WORD = re.compile(r"\bline\s+\d+\b")
_PYTEST_GUTTER = re.compile(r"^E(?:\s{2,}|\t)")
_WHITESPACE = re.compile(r"\s+")


def normalise_error_line(line: str) -> str:
    """The error line with run-dependent noise removed (see module docstring). Idempotent."""
    text = line[:MAX_ERROR_LINE_CHARS]
    text = _PYTEST_GUTTER.sub("", text.strip())
    text = _ADDRESS.sub("0x_", text)
    text = _TRUNCATED_ADDRESS.sub(r"\g<1>0x_>", text)
    text = _MEMORY_ID.sub(r"\g<1>_", text)
    text = _DECIMAL_ID.sub(r"\g<1>id_>", text)
    text = _BINARY_LITERAL.sub("'<binary>'", text)
    text = _POSIX_ABS.sub(r"\1", text)
    text = _WINDOWS_ABS.sub(r"\1", text)
    text = _FILE_LINENO.sub(r"\1", text)
    text = _LINE_WORD.sub("line _", text)
    return _WHITESPACE.sub(" ", text).strip()


def failure_signature(compiles: bool, failing_test_ids: Iterable[str], top_error_line: str) -> str:
    """blake2b-128 (hex) of the failing state: (compiles, sorted unique failing ids, normalised error line).

    The encoding is a JSON array with a version tag, so no two distinct states share an encoding (a tuple of
    strings joined with a separator would let ids containing the separator collide).
    """
    ids = sorted(set(failing_test_ids))
    canonical = [SIGNATURE_VERSION, bool(compiles), ids, normalise_error_line(top_error_line)]
    encoded = json.dumps(canonical, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(encoded, digest_size=16).hexdigest()


def candidate_digest(files: Iterable[tuple[str | PurePath, str | bytes]]) -> str:
    """sha256 (hex) over the candidate's editable files, sorted by path; order of ``files`` does not matter.

    Each path and content is length-prefixed so that moving bytes between a path and its content, or between
    two files, changes the digest. ``str`` content is hashed as UTF-8. A path given twice is a caller bug.
    """
    entries: dict[bytes, bytes] = {}
    for path, content in files:
        key = str(path).encode("utf-8", "surrogatepass")
        if key in entries:
            raise ValueError(f"candidate lists {str(path)!r} twice")
        entries[key] = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else bytes(content)
    digest = hashlib.sha256(b"candidate-v1\0")
    for key in sorted(entries):
        for part in (key, entries[key]):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return digest.hexdigest()


# --- extracting the top error line from pytest output -------------------------------------------------------

# ``ValueError: x``, ``pkg.mod.CustomError``, ``Failed: DID NOT RAISE``, ``KeyboardInterrupt``.
_EXCEPTION_LINE = re.compile(
    r"^(?:[A-Za-z_]\w*\.)*(?:\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure)|Failed)(?::|$)"
)
_ASSERT_LINE = re.compile(r"^assert\b")
_LOCATION_LINE = re.compile(r'^(?:File "|Traceback \(most recent call last\)|During handling|The above exception)')
_TB_LINE_FORMAT = re.compile(r"^\S+\.py[iwx]?:\d+: (.+)$")  # pytest --tb=line: ``/abs/t.py:5: assert 3 == 4``
_SUMMARY_LINE = re.compile(r"^(?:FAILED|ERROR) \S+ - (.+)$")  # pytest -rA short summary
_DECORATION = re.compile(r"^[=_\-^~ ]*$")


def _is_error(line: str) -> bool:
    return bool(_EXCEPTION_LINE.match(line) or _ASSERT_LINE.match(line))


def _gutter_lines(lines: list[str]) -> list[str]:
    """pytest's explanation lines (``E   ...``) without the gutter; they carry the failure's message."""
    return [line[1:].strip() for line in lines if line.startswith("E ") or line == "E" or line.startswith("E\t")]


def top_error_line(text: str) -> str:
    """The first meaningful error line of pytest (or plain traceback) output; "" when there is none.

    In order of preference: the first ``E`` line that states an exception or an assertion; the first
    unindented exception line (plain tracebacks, where source lines are indented); the message of a
    ``--tb=line`` entry or of a short-summary ``FAILED id - message`` line; the first ``E`` line that is not a
    location. Source listings (``>   assert f() == 4``) are never chosen: they show code, not the failure.
    """
    lines = text.splitlines()
    gutter = _gutter_lines(lines)
    for line in gutter:
        if _is_error(line):
            return line
    for line in lines:
        if line[:1].strip() and _EXCEPTION_LINE.match(line.rstrip()):
            return line.strip()
    for line in lines:
        found = _TB_LINE_FORMAT.match(line.strip()) or _SUMMARY_LINE.match(line.strip())
        if found:
            return found.group(1).strip()
    for line in gutter:
        if line and not _LOCATION_LINE.match(line) and not _DECORATION.match(line):
            return line
    return ""
