"""The prompt a model sees for one task: what to edit, what fails, and how to answer.

The user message holds exactly: the current content of every editable file (``spec.source_files``, verbatim
in fenced blocks under their paths), the ids and source of the fail-to-pass tests (cut from the test files
in the workspace, see :mod:`bench.attempt.failing_tests`) and, for synthetic tasks, the task's SPEC.md text.
Nothing about the fix — commit, PR, history — is ever included. The same spec and workspace always give the
same messages, and ``sha256`` is taken over a canonical JSON of them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from bench.attempt import DEFAULT_EDIT_FORMAT
from bench.attempt import failing_tests
from bench.attempt import workspace_files as files
from bench.errors import EditError, SpecError
from bench.model.protocol import Message
from bench.spec.model import TaskSpec

_LANGUAGES = {".py": "python", ".pyi": "python", ".pyx": "cython", ".toml": "toml", ".cfg": "ini"}


@dataclass(frozen=True)
class Prompt:
    messages: tuple[Message, ...]
    sha256: str
    # Under a context policy or budget (bench.attempt.context): what the record says of the prompt, and what
    # it shows (bench.attempt.context_prompt.ContextMessage); None for the default prompt.
    context: dict | None = None
    shown: object = field(default=None, compare=False)


def build_prompt(spec: TaskSpec, workspace: Path, *, spec_text: str = "",
                 edit_format: str = DEFAULT_EDIT_FORMAT, context=None, failure_texts: tuple[str, ...] = ()) -> Prompt:
    """The task's messages; ``edit_format`` (bench.attempt.formats) decides only the system prompt.

    ``context`` (a :class:`bench.attempt.context.ContextSettings`) other than the default chooses what code is
    shown and fits the prompt to a budget; ``failure_texts`` are the failing tests' output at base, which
    localization reads (never the fix)."""
    from bench.attempt.formats import edit_format as format_named

    system = format_named(edit_format).system_prompt
    if context is not None and not context.is_default:
        return _context_prompt(spec, workspace, spec_text, system, context, failure_texts)
    sections = [_task_line(spec)]
    if spec_text.strip():
        sections.append("## Specification\n\n" + spec_text.strip() + "\n")
    sources = [(path, _read(workspace, path)) for path in spec.source_files]
    sections.append("## Editable files\n\n" + render_files(sources))
    sections.append(_failing_tests_section(spec, workspace))
    messages = (Message("system", system), Message("user", "\n".join(sections)))
    return Prompt(messages=messages, sha256=prompt_sha256(messages))


def _context_prompt(spec, workspace, spec_text, system, settings, failure_texts) -> Prompt:
    from bench.attempt.context_prompt import context_message
    from bench.model.tokenizers import count_messages, get_tokenizer

    tokenizer = get_tokenizer(settings.tokenizer)
    system_tokens = count_messages(tokenizer, (system,))

    def count_prompt(system_text: str, user_text: str) -> int:  # only ever asked with this prompt's system message
        return system_tokens + count_messages(tokenizer, (user_text,))

    message = context_message(spec, workspace, spec_text=spec_text, system=system, settings=settings,
                              failure_texts=failure_texts, read=_read, count_prompt=count_prompt,
                              count=tokenizer.count)
    messages = (Message("system", system), Message("user", message.text))
    shown = message.shown
    record = {**settings.as_record(), "prompt_tokens": count_prompt(system, message.text), "cut": shown.cut,
              "blocks": [len(shown.blocks), shown.offered]}
    return Prompt(messages=messages, sha256=prompt_sha256(messages), context=record, shown=message)


def prompt_sha256(messages: tuple[Message, ...]) -> str:
    """sha256 of the canonical JSON of the messages (sorted keys, no spaces, UTF-8)."""
    canonical = json.dumps(
        [{"content": m.content, "role": m.role} for m in messages],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def feedback_message(text: str, *, current_files: tuple[tuple[str, str | None], ...] = (),
                     edit_format: str = DEFAULT_EDIT_FORMAT, shown=None, tree: Path | None = None) -> Message:
    """The user turn of the repair loop: what the harness observed, optionally the files as they are now —
    under a context policy (``shown``, the first prompt's :class:`~bench.attempt.context_prompt.ContextMessage`)
    the same parts of them, read from ``tree``."""
    from bench.attempt.formats import edit_format as format_named

    parts = [text.rstrip("\n") + "\n"]
    if current_files and shown is not None and tree is not None:
        from bench.attempt.context_prompt import current_files as shown_now

        parts.append("The parts of the editable files shown before now read:\n\n" + shown_now(tree, shown, _read))
    elif current_files:
        parts.append("The editable files now contain:\n\n" + render_files(current_files))
    parts.append(format_named(edit_format).feedback_request)
    return Message("user", "\n".join(parts))


def render_files(contents: list[tuple[str, str | None]] | tuple[tuple[str, str | None], ...]) -> str:
    """Each file under a ``### path`` heading in a fence longer than any backtick run inside it."""
    blocks = []
    for path, content in contents:
        if content is None:
            blocks.append(f"### {path}\n\n(This file does not exist yet; create it with an empty SEARCH.)\n")
        else:
            blocks.append(f"### {path}\n\n{fenced(content, language_of(path))}")
    return "\n".join(blocks)


def fenced(content: str, language: str = "") -> str:
    longest = run = 0
    for char in content:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    body = content if content.endswith("\n") or not content else content + "\n"
    return f"{fence}{language}\n{body}{fence}\n"


def language_of(path: str) -> str:
    suffix = Path(path).suffix
    return _LANGUAGES.get(suffix, "")


def _task_line(spec: TaskSpec) -> str:
    editable = ", ".join(spec.source_files)
    return f"Fix the bug so that the failing tests below pass. Editable files: {editable}.\n"


def _failing_tests_section(spec: TaskSpec, workspace: Path) -> str:
    ids = "".join(f"- {test_id}\n" for test_id in spec.fail_to_pass)
    parts = [f"## Failing tests\n\nThese tests fail now and must pass after your edit:\n{ids}"]
    for path, refs in failing_tests.group_by_file(spec.fail_to_pass).items():
        source = _read(workspace, path)
        if source is None:
            parts.append(f"### {path}\n\n(test file not found in the workspace)\n")
            continue
        parts.append(f"### {path}\n\n{fenced(failing_tests.extract(source, refs), 'python')}")
    return "\n".join(parts)


def _read(workspace: Path, path: str) -> str | None:
    """A workspace file's text; symlinks and paths leaving the workspace are a broken task, not a prompt."""
    try:
        text = files.read_text(workspace, files.normalise_path(path))
    except EditError as exc:
        raise SpecError(f"cannot show {path} in the prompt: {exc}", kind="unsafe_workspace_path") from exc
    if text is None:
        return None
    # Bytes that are not UTF-8 cannot travel in JSON; show them as U+FFFD (edits still match the raw file
    # only where the model quotes valid text).
    return files.encode(text).decode("utf-8", "replace")
