"""Reading task specs from disk into TaskSpec records, and selecting them."""

from __future__ import annotations

import fnmatch
import hashlib
import json
from pathlib import Path
from typing import Any, Iterable, Mapping

from bench.errors import DuplicateTaskError, SpecError, UsageError
from bench.spec.model import Judgement, MutationSite, Provenance, SdistPin, TaskSpec
from bench.spec.validate import validate_document


def read_document(path: Path) -> Any:
    return _parse(_read_bytes(path), path)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SpecError(f"cannot read: {exc.strerror}", kind="unreadable", path=str(path)) from exc


def _parse(raw: bytes, path: Path) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SpecError(f"not valid JSON: {exc}", kind="invalid_json", path=str(path)) from exc


def spec_from_document(doc: Mapping[str, Any], *, path: str = "", validated: bool = False) -> TaskSpec:
    """The TaskSpec of a parsed document, validated first unless ``validated`` says this content already was."""
    if not validated:
        validate_document(doc, path=path)
    prov = doc["provenance"]
    mutation = doc.get("mutation")
    return TaskSpec(
        task_id=doc["task_id"],
        kind=doc["kind"],
        repo=doc["repo"],
        source_files=tuple(doc["source_files"]),
        test_files=tuple(doc["test_files"]),
        fail_to_pass=tuple(doc["fail_to_pass"]),
        pass_to_pass=tuple(doc["pass_to_pass"]),
        image=doc["image"],
        lockfile=doc["lockfile"],
        provenance=Provenance(source=prov["source"], pr_number=prov.get("pr_number"), url=prov.get("url", ""),
                              merged_at=prov.get("merged_at", ""), title=prov.get("title", ""),
                              reverted_commit=prov.get("reverted_commit", ""),
                              released=prov.get("released", ""), authored=prov.get("authored", ""),
                              judgement=Judgement.from_json(prov["judgement"]) if "judgement" in prov else None),
        base_sha=doc.get("base_sha", ""),
        fix_sha=doc.get("fix_sha", ""),
        difficulty=doc.get("difficulty", ""),
        tags=tuple(doc.get("tags", ())),
        synthetic_dir=doc.get("synthetic", {}).get("dir", ""),
        sdist=SdistPin(**doc["sdist"]) if "sdist" in doc else None,
        mutation=MutationSite(**{k: v for k, v in mutation.items() if k != "diff"}) if mutation else None,
        schema_version=doc["schema_version"],
        path=path,
        raw=doc,
    )


def load_spec(path: Path, *, revalidate: bool = False) -> TaskSpec:
    """Read, validate and convert one spec file. Validation is remembered by the file's content hash (and the
    schema's and harness's versions), so a pool of hundreds of large specs is checked once, not on every run."""
    raw = _read_bytes(path)
    doc = _parse(raw, path)
    memo, key = _validation_memo(raw)
    known = not revalidate and memo is not None and memo.get(key) is not None
    spec = spec_from_document(doc, path=str(path), validated=known)
    if memo is not None and not known:
        memo.put(key, b"valid\n")
    return spec


def _validation_memo(raw: bytes):
    """The cache of validated spec contents and this content's key (no cache: ``(None, "")``)."""
    from bench import __version__
    from bench.spec.validate import schema_sha256
    from bench.store.action_cache import ActionCache

    try:
        memo = ActionCache("valid-specs")
    except Exception:  # no usable cache directory: validate every time
        return None, ""
    return memo, memo.key({"spec_sha256": hashlib.sha256(raw).hexdigest(), "schema": schema_sha256(),
                           "harness_version": __version__})


def spec_sha256(spec: TaskSpec) -> str:
    """Content hash of a spec's canonical JSON: the identity records cite. The labels of its provenance (the
    admission judgement, a release's upload day, a synthetic task's authoring day) are left out: they describe
    the task and decide none of its runs."""
    canonical = json.dumps(identity_document(spec.raw), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def identity_document(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    """The spec document without what is not part of its identity."""
    provenance = doc.get("provenance")
    if not isinstance(provenance, Mapping) or not LABELS.intersection(provenance):
        return doc
    return {**doc, "provenance": {k: v for k, v in provenance.items() if k not in LABELS}}


LABELS = frozenset({"judgement", "released", "authored"})  # provenance fields outside a spec's identity


RETIRED = "_retired"


def discover(root: Path, *, retired: bool = False) -> tuple[Path, ...]:
    """Every spec file `root/tasks/<group>/<name>.json`, skipping groups whose name starts with `_` (drops,
    scripted data). Deeper JSON files belong to a task's own data and are not specs.

    ``retired`` adds the specs of `root/tasks/_retired/<group>/`: tasks no longer in the pool (a pool rebuilt by
    a newer mutation engine) whose committed runs and certificates must still verify. Nothing selects them for
    new work."""
    tasks = root / "tasks"
    found = [p for p in sorted(tasks.glob("*/*.json")) if not p.parent.name.startswith("_")]
    if retired:
        found += [p for p in sorted((tasks / RETIRED).glob("*/*.json")) if not p.parent.name.startswith("_")]
    return tuple(found)


def load_all(paths: Iterable[Path], *, revalidate: bool = False) -> tuple[TaskSpec, ...]:
    specs: list[TaskSpec] = []
    seen: dict[str, str] = {}
    for path in paths:
        spec = load_spec(path, revalidate=revalidate)
        if spec.task_id in seen:
            raise DuplicateTaskError(f"task id {spec.task_id!r} also defined in {seen[spec.task_id]}",
                                     kind="duplicate_id", path=str(path))
        seen[spec.task_id] = str(path)
        specs.append(spec)
    return tuple(specs)


def select(specs: Iterable[TaskSpec], selector: str | None) -> tuple[TaskSpec, ...]:
    """Filter specs by a selector.

    ``None``, ``all`` or ``tasks::`` — everything; ``kind:pr``, ``lib:click``, ``difficulty:hard``,
    ``tag:graphs``, ``image:NAME``, ``judgement:bugfix`` (a PR task's admission judgement; ``judgement:none``
    for tasks without one), ``operator:reverted_fix`` (a mutation task's operator; ``operator:none`` for the
    other kinds) — by field (``lib:`` also matches the library's import package, so
    ``lib:jinja2`` selects jinja's PR tasks and jinja2's mutation tasks); ``tasks/click::`` — by folder;
    ``after:2024-06-01`` / ``before:2024-06-01`` — by the task's date (:attr:`TaskSpec.date`): on or after,
    strictly before, so the two split the pool at a cut-off (an undated task matches neither);
    anything else — a glob over task ids (``synthetic.*``). ``+`` joins conditions that must all hold
    (``kind:synthetic+difficulty:hard``); ``,`` joins alternatives (union).
    """
    specs = tuple(specs)
    if selector in (None, "", "all", "tasks::", "::"):
        return specs
    chosen: dict[str, TaskSpec] = {}
    for part in selector.split(","):
        conditions = [c.strip() for c in part.split("+")]
        matched = [s for s in specs if all(_matches(s, c) for c in conditions)]
        if not matched:
            raise UsageError(f"selector {part.strip()!r} matches no task{_known_values(specs, conditions)}")
        chosen.update((s.task_id, s) for s in matched)
    return tuple(s for s in specs if s.task_id in chosen)


SELECTOR_KEYS = ("kind", "lib", "difficulty", "tag", "image", "judgement", "operator")
DATE_KEYS = ("after", "before")


def _values(spec: TaskSpec, key: str) -> tuple[str, ...]:
    from bench.spec.kind_registry import get_kind

    return {
        "kind": (spec.kind,),
        # A real library is known by its repository's and its package's names (a synthetic task's modules are
        # not libraries): the kind says which.
        "lib": (spec.library,) + get_kind(spec.kind).selector_names(spec),
        "difficulty": (spec.difficulty,),
        "tag": spec.tags,
        "image": (spec.image,),
        "judgement": (spec.provenance.judgement.verdict if spec.provenance.judgement else "none",),
        "operator": (spec.mutation.operator if spec.mutation else "none",),
    }[key]


def _matches(spec: TaskSpec, part: str) -> bool:
    if part.endswith("::"):
        folder = part[:-2].rstrip("/")
        return spec.path.startswith(folder + "/") or f"/{folder}/" in spec.path
    key, sep, value = part.partition(":")
    if sep:
        if key in DATE_KEYS:
            return _dated(spec, key, value)
        if key not in SELECTOR_KEYS:
            raise UsageError(f"unknown selector key {key!r} ({', '.join(SELECTOR_KEYS + DATE_KEYS)})")
        return value in _values(spec, key)
    return fnmatch.fnmatchcase(spec.task_id, part)


def _dated(spec: TaskSpec, key: str, day: str) -> bool:
    cutoff = parse_day(day, what=f"{key}:")
    if not spec.date:
        return False
    return spec.date >= cutoff if key == "after" else spec.date < cutoff


def parse_day(text: str, *, what: str) -> str:
    """A ``YYYY-MM-DD`` given by the user, checked (a usage error otherwise)."""
    import datetime

    try:
        if len(text) == 10:
            return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    raise UsageError(f"{what} wants a day as YYYY-MM-DD, not {text!r}")


def _known_values(specs, conditions) -> str:
    """For a field condition that matches nothing on its own, the values the pool has for that field."""
    for condition in conditions:
        key, sep, value = condition.partition(":")
        if sep and key in DATE_KEYS and not any(_dated(s, key, value) for s in specs):
            days = sorted(s.date for s in specs if s.date)
            return f" (task dates in the pool: {days[0]} to {days[-1]})" if days else " (no task is dated)"
        if sep and key in SELECTOR_KEYS and not condition.endswith("::") \
                and not any(value in _values(s, key) for s in specs):
            known = sorted({v for s in specs for v in _values(s, key) if v})
            shown = ", ".join(known[:40]) + (" …" if len(known) > 40 else "")
            return f" ({key} values in the pool: {shown})"
    return ""
