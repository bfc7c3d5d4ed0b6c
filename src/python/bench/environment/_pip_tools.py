"""Everything that knows pip-compile's command line and the requirements-file format it writes.

The lock text must not depend on where or when it was made, so the header pip-compile writes (the command,
the output path) is replaced by a fixed one, and the inputs are always compiled from the same relative file
name in the same sandbox directory (the ``# via -r requirements.in`` annotations stay stable).
"""

from __future__ import annotations

import re

from bench.spec.model import normalise_name

INPUT_NAME = "requirements.in"
OUTPUT_NAME = "requirements.lock"
UPLOADED_PRIOR_TO = "--uploaded-prior-to"

# Fixed flags: hashes for every distribution, build tools (pip, setuptools) pinned too, no extras in the
# output (extras only change which dependencies are pulled, and those are listed), nothing about indexes.
_COMPILE_FLAGS = (
    "--no-config",
    "--quiet",
    "--generate-hashes",
    "--allow-unsafe",
    "--strip-extras",
    "--no-emit-index-url",
    "--no-emit-find-links",
    "--no-emit-trusted-host",
    "--no-header",
    "--newline=lf",
    "--annotation-style=split",
    "--rebuild",
)


def compile_argv(pip_compile: str, *, uploaded_prior_to: str | None, build_isolation: bool = True) -> tuple[str, ...]:
    """argv for one pip-compile of ``requirements.in`` into ``requirements.lock`` in the current directory."""
    argv = [pip_compile, *_COMPILE_FLAGS, f"--output-file={OUTPUT_NAME}"]
    if not build_isolation:
        argv.append("--no-build-isolation")
    if uploaded_prior_to:
        argv.append(f"--pip-args={UPLOADED_PRIOR_TO} {uploaded_prior_to}")
    argv.append(INPUT_NAME)
    return tuple(argv)


def option_unsupported(stderr: str) -> bool:
    """True when pip rejected ``--uploaded-prior-to`` (pip < 26), as opposed to a failed resolution."""
    return f"no such option: {UPLOADED_PRIOR_TO}" in stderr


def sdist_metadata_failed(output: str) -> bool:
    """True when an sdist's metadata could not be prepared: in build isolation pip fetches the sdist's build
    backend as of the cut-off too, and a setuptools older than the interpreter cannot run on it. pip reports it
    as ``error: metadata-generation-failed``; pip-compile, which calls pip's resolver itself, can end instead in
    the exception's traceback (``MetadataGenerationFailed``)."""
    return any(marker in output for marker in _METADATA_FAILED)


_METADATA_FAILED = ("FailedToPrepareCandidate", "metadata-generation-failed", "MetadataGenerationFailed")


_UNRESOLVABLE = ("No matching distribution found", "Could not find a version that satisfies", "ResolutionImpossible")


def resolution_impossible(output: str) -> bool:
    """True when pip-compile failed because no set of files satisfies the inputs (not a crash or a timeout)."""
    return any(marker in output for marker in _UNRESOLVABLE)


def requirements_in(requirements: tuple[str, ...]) -> str:
    """The input file: one requirement per line, sorted and de-duplicated so the order of discovery is moot."""
    return "".join(f"{line}\n" for line in sorted(set(requirements)))


def with_header(body: str, header: tuple[str, ...]) -> str:
    """Replace pip-compile's own leading comment block with ``header`` (lines without the ``# ``)."""
    lines = body.splitlines()
    while lines and (lines[0].startswith("#") or not lines[0].strip()):
        lines.pop(0)
    head = [f"# {line}".rstrip() for line in header]
    return "\n".join([*head, *lines]) + "\n"


_NAME_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;\\]+)\s*(?:;\s*(.+?))?\s*$")
_HASH_RE = re.compile(r"--hash[=\s]+(\w+):([0-9a-fA-F]+)")


def logical_lines(text: str) -> list[str]:
    """Requirement entries with backslash continuations joined and comments dropped."""
    entries: list[str] = []
    current = ""
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0] if not raw.lstrip().startswith("#") else ""
        stripped = line.rstrip()
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        current += stripped
        if current.strip():
            entries.append(current.strip())
        current = ""
    if current.strip():
        entries.append(current.strip())
    return entries


def parse_locked(text: str) -> tuple[tuple[str, str, tuple[str, ...], str], ...]:
    """(normalised name, version, sorted sha256 hex digests, marker) per entry; ValueError on anything else.

    Only ``name==version [; marker] --hash=sha256:…`` entries are allowed: an option line (``-e``, ``-r``,
    ``--index-url``) or an unpinned requirement would let an install reach beyond the lock.
    """
    parsed = []
    for entry in logical_lines(text):
        hashes = _HASH_RE.findall(entry)
        requirement = _HASH_RE.sub("", entry).strip()
        match = _NAME_RE.match(requirement)
        if match is None:
            raise ValueError(f"not a pinned requirement: {entry[:200]!r}")
        if not hashes:
            raise ValueError(f"requirement without --hash: {requirement!r}")
        if any(algorithm != "sha256" for algorithm, _ in hashes):
            raise ValueError(f"only sha256 hashes are accepted: {requirement!r}")
        name, version, marker = match.group(1), match.group(2), match.group(3) or ""
        digests = tuple(sorted({digest.lower() for _, digest in hashes}))
        parsed.append((normalise_name(name), version, digests, marker))
    return tuple(parsed)


def drop_project(text: str, name: str) -> str:
    """Remove the entry for project ``name`` (with its continuation and annotation lines) from a lock."""
    wanted = normalise_name(name)
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        starts_entry = bool(line) and not line[0].isspace() and not line.startswith("#")
        if starts_entry:
            match = _NAME_RE.match(line.rstrip("\\ ").strip())
            skipping = bool(match) and normalise_name(match.group(1)) == wanted
        elif line.startswith("#") or not line.strip():
            skipping = False
        if not skipping:
            kept.append(line)
    return "\n".join(kept) + "\n"


def pinned_requirement(name: str, version: str, sha256: str, marker: str = "") -> str:
    """One install line pinned to exactly one file (the one chosen from the wheelhouse)."""
    where = f" ; {marker}" if marker else ""
    return f"{name}=={version}{where} --hash=sha256:{sha256}"


_FAILED_BUILD = re.compile(r"Failed to build '([^']+)'")
_METADATA_PACKAGE = re.compile(r"generating package metadata\.?\s*\n\s*╰─>\s*([A-Za-z0-9][A-Za-z0-9_.\-]*(?:==[^\s]+)?)")
_CAUSE = re.compile(r"^\s*((?:[A-Za-z_][\w.]*(?:Error|Exception|Warning)|error): .+?)\s*$", re.MULTILINE)
_NOT_A_CAUSE = ("pip._internal", "error: subprocess-exited-with-error", "error: metadata-generation-failed")


def metadata_failure(output: str) -> tuple[str, str]:
    """(the package whose metadata could not be generated, the last error its build backend printed), each ""
    when pip's output does not say."""
    named = _FAILED_BUILD.search(output) or _METADATA_PACKAGE.search(output)
    package = named.group(1) if named and "See above" not in named.group(1) else ""
    causes = [m.group(1) for m in _CAUSE.finditer(output) if not m.group(1).startswith(_NOT_A_CAUSE)
              and "pip._internal" not in m.group(1)]
    return package, causes[-1] if causes else ""


_TEST_WORDS = re.compile(r"test", re.IGNORECASE)


def environment_file(origin: str) -> bool:
    """A requirements file that sets up an environment other than the tests' — ``requirements.txt``,
    ``requirements-dev.txt``, ``requirements/benchmark.txt``, ``docs/requirements.txt`` — as opposed to the
    tests' own file or the project's metadata (pyproject, setup.py extras)."""
    parts = origin.split("/")
    name = parts[-1]
    if not name.endswith((".txt", ".in")) or _TEST_WORDS.search(origin):
        return False
    return len(parts) == 1 or parts[0].lower() in ("requirements", "reqs", "docs", "doc", "benchmarks", "bench")
