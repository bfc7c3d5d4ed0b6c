"""A recorded mutation site (``bench.spec.model.MutationSite``) written into a release tree, or taken out again.

Laying out a mutation task's workspace writes its site into the pristine release (``bench.source.workspace``);
the mutation engine (``bench.mutate.engine``) writes and reverts candidate sites the same way. A site names the
sha256 of the text its span holds, so a tree that is not the release the site was made from is refused.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from bench.errors import CheckFailed
from bench.spec.model import MutationSite
from bench.store.atomic import write_atomic


def _drop_bytecode(path: Path) -> None:
    # A same-size edit within the same second can make Python trust a stale .pyc; remove the cached ones.
    cache = path.parent / "__pycache__"
    if cache.is_dir():
        for compiled in cache.glob(f"{path.stem}.*.pyc"):
            compiled.unlink(missing_ok=True)


def _swap(path: Path, data: bytes, site: MutationSite, expected: str, new: str) -> Path:
    """Replace ``expected`` at the site's start in ``path`` (whose bytes are ``data``) by ``new``."""
    old_bytes, new_bytes = expected.encode("utf-8"), new.encode("utf-8")
    found = data[site.start : site.start + len(old_bytes)]
    if found != old_bytes:
        raise CheckFailed(f"{site.file}@{site.start}: expected {expected!r}, found {found.decode(errors='replace')!r}")
    # `<` -> `<=`: a span holding `<=` also starts with `<`. In an untouched file the longer text cannot
    # follow there (it would have been one token, or another site), so seeing it means: done already.
    if len(new_bytes) > len(old_bytes) and data.startswith(new_bytes, site.start):
        raise CheckFailed(f"{site.file}@{site.start}: expected {expected!r}, found {new!r} (already swapped)")
    write_atomic(path, data[: site.start] + new_bytes + data[site.start + len(old_bytes) :],
                 mode=path.stat().st_mode & 0o7777, sync=False)
    _drop_bytecode(path)
    return path


def text_sha256(text: str) -> str:
    """How a site names the text its span replaces (sha256 of the UTF-8 bytes)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def apply_mutation(tree: Path, site: MutationSite) -> Path:
    """Write ``site`` into the tree (its span must hash to ``site.original_sha256``); returns the changed file."""
    path = Path(tree) / site.file
    data = path.read_bytes()
    span = data[site.start : site.end]
    if hashlib.sha256(span).hexdigest() != site.original_sha256:
        raise CheckFailed(f"{site.file}@{site.start}: the span does not hold the text the site names "
                          f"(sha256 {site.original_sha256[:12]}…), found {span.decode(errors='replace')!r}")
    return _swap(path, data, site, span.decode("utf-8"), site.replacement)


def revert(tree: Path, site: MutationSite, original: str) -> Path:
    """Undo :func:`apply_mutation` (the span must hold ``site.replacement``); ``original`` is the text the
    span held (:attr:`MutationCandidate.original`, or read from the release). Returns the restored file."""
    if text_sha256(original) != site.original_sha256:
        raise CheckFailed(f"{site.file}@{site.start}: {original!r} is not the text the site replaced")
    path = Path(tree) / site.file
    return _swap(path, path.read_bytes(), site, site.replacement, original)
