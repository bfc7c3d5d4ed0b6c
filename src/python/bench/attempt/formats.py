"""Edit formats: how a model is asked to answer, and how its reply is read and applied (``--edit-format``).

* ``search-replace`` (the default): aider-style SEARCH/REPLACE blocks (:mod:`bench.attempt.edits`);
* ``function``: the new full text of whole functions or classes, spliced by AST (:mod:`bench.attempt.function_edits`),
  a format small models manage where exact SEARCH text defeats them;
* ``diff``: a unified diff of the editable files (:mod:`bench.attempt.unified_diff`).

Every format applies all or nothing, to the task's editable files only, under the same reply limits; a reply
that cannot be read or applied is ``invalid_edit`` with the reason. Only the system prompt and the loop's
closing request differ between formats, so a run in the default format keeps its prompts, and their hashes,
byte for byte.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bench.attempt import EDIT_FORMATS, function_edits
from bench.attempt import workspace_files as files
from bench.attempt.edits import MAX_REPLY_BYTES, apply_edits, parse_edits
from bench.attempt.unified_diff import apply_unified_diff
from bench.attempt.workspace_files import AppliedEdits
from bench.errors import EditError, UsageError

@dataclass(frozen=True)
class EditFormat:
    name: str
    system_prompt: str
    feedback_request: str  # the last line of each feedback turn of a repair loop
    apply: Callable[[Path, str, tuple[str, ...]], AppliedEdits]  # (tree, reply, editable paths), all or nothing


def _search_replace(tree: Path, reply: str, allowed: tuple[str, ...]) -> AppliedEdits:
    return apply_edits(tree, parse_edits(reply), allowed)


def _function(tree: Path, reply: str, allowed: tuple[str, ...]) -> AppliedEdits:
    def current(path: str) -> str | None:  # only editable files are read, as only they may be changed
        return files.read_text(tree, files.check_allowed(path, allowed))

    return apply_edits(tree, function_edits.parse_function_edits(reply, current), allowed)


def _diff(tree: Path, reply: str, allowed: tuple[str, ...]) -> AppliedEdits:
    size = len(reply.encode("utf-8", "surrogatepass"))
    if size > MAX_REPLY_BYTES:
        raise EditError(f"the reply is {size} bytes, more than the {MAX_REPLY_BYTES} a reply may have",
                        reason="reply_too_large")
    return apply_unified_diff(tree, reply, allowed)


DIFF_SYSTEM_PROMPT = """\
You are an expert Python developer fixing a bug in a repository.

You are shown the current content of the files you may edit and the tests that fail. Change the editable \
files so that the failing tests pass without breaking other behaviour. You cannot run anything: reply with \
edits only.

Reply with one unified diff of the editable files, as `diff -u` or `git diff` writes it, in a ```diff block:

```diff
--- a/path/to/file.py
+++ b/path/to/file.py
@@ -12,3 +12,3 @@
 a context line copied exactly
-the line to remove
+the line that replaces it
```

Rules:
- Paths are the editable files' paths, written as shown (the a/ and b/ prefixes are optional).
- Context and removed lines must match the current file exactly; hunk line numbers may be approximate.
- Test files cannot be edited.
- Text outside the diff is ignored.
"""


@functools.cache
def _formats() -> dict[str, EditFormat]:
    from bench.attempt import edits

    return {
        "search-replace": EditFormat("search-replace", edits.SYSTEM_PROMPT,
                                     "Reply with SEARCH/REPLACE blocks that apply to the files as they are now.\n",
                                     _search_replace),
        "function": EditFormat("function", function_edits.SYSTEM_PROMPT, function_edits.FEEDBACK_REQUEST,
                               _function),
        "diff": EditFormat("diff", DIFF_SYSTEM_PROMPT,
                           "Reply with one unified diff against the files as they are now.\n", _diff),
    }




def edit_format(name: str) -> EditFormat:
    formats = _formats()
    if name not in formats:
        raise UsageError(f"unknown edit format {name!r}; known: {', '.join(EDIT_FORMATS)}")
    return formats[name]
