from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from bench.attempt.edits import SYSTEM_PROMPT, parse_edits
from bench.attempt.prompt import (
    build_prompt,
    feedback_message,
    fenced,
    prompt_sha256,
)
from bench.errors import SpecError
from bench.model.protocol import Message
from bench.spec.model import Provenance, TaskSpec

FIX_SHA = "f1x5ha0000000000000000000000000000000001"
BASE_SHA = "ba5e5ha000000000000000000000000000000002"
PR_URL = "https://example.invalid/owner/lib/pull/4242"
PR_TITLE = "Fix off-by-one in frobnicate (closes #99)"


def make_spec(**overrides) -> TaskSpec:
    fields = dict(
        task_id="lib-4242",
        kind="pr",
        repo="owner/lib",
        source_files=("src/lib/core.py", "src/lib/util.py"),
        test_files=("tests/test_core.py",),
        fail_to_pass=(
            "tests/test_core.py::TestCore::test_edge[0]",
            "tests/test_core.py::TestCore::test_edge[1]",
            "tests/test_core.py::test_top",
        ),
        pass_to_pass=("tests/test_core.py::test_untouched",),
        image="py311",
        lockfile="lockfiles/tasks/lib-4242.lock",
        provenance=Provenance(
            "pull-request", pr_number=4242, url=PR_URL, merged_at="2024-01-02", title=PR_TITLE
        ),
        base_sha=BASE_SHA,
        fix_sha=FIX_SHA,
    )
    fields.update(overrides)
    return TaskSpec(**fields)


TEST_FILE = """\
import pytest
from lib.core import frob


def test_untouched():
    assert "PASS_TO_PASS_BODY"


class TestCore:
    @pytest.mark.parametrize("n", [0, 1])
    def test_edge(self, n):
        assert frob(n) == n


def test_top():
    assert frob(2) == 2
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "src/lib").mkdir(parents=True)
    (tmp_path / "src/lib/core.py").write_text("def frob(n):\n    return n + 1  # ```tricky```\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_core.py").write_text(TEST_FILE)
    return tmp_path


def user_text(prompt) -> str:
    assert [m.role for m in prompt.messages] == ["system", "user"]
    return prompt.messages[1].content


def test_prompt_is_deterministic_and_sha_is_canonical_json(workspace: Path, tmp_path_factory):
    first = build_prompt(make_spec(), workspace)
    twin = tmp_path_factory.mktemp("twin")
    shutil.copytree(workspace, twin, dirs_exist_ok=True)
    second = build_prompt(make_spec(), twin)
    assert first == second
    canonical = json.dumps(
        [{"content": m.content, "role": m.role} for m in first.messages],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert first.sha256 == hashlib.sha256(canonical.encode()).hexdigest() == prompt_sha256(first.messages)


def test_prompt_changes_when_a_source_file_changes(workspace: Path):
    before = build_prompt(make_spec(), workspace).sha256
    (workspace / "src/lib/core.py").write_text("def frob(n):\n    return n\n")
    assert build_prompt(make_spec(), workspace).sha256 != before


def test_prompt_holds_sources_failing_tests_and_format_only(workspace: Path):
    prompt = build_prompt(make_spec(), workspace)
    text = user_text(prompt)
    assert prompt.messages[0] == Message("system", SYSTEM_PROMPT)
    assert "### src/lib/core.py\n\n````python\ndef frob(n):\n    return n + 1  # ```tricky```\n````\n" in text
    assert "### src/lib/util.py\n\n(This file does not exist yet" in text
    assert (
        "- tests/test_core.py::TestCore::test_edge[0]\n- tests/test_core.py::TestCore::test_edge[1]\n" in text
    )
    assert (
        'class TestCore:\n    @pytest.mark.parametrize("n", [0, 1])\n    def test_edge(self, n):\n'
        "        assert frob(n) == n\n\ndef test_top():\n    assert frob(2) == 2\n"
    ) in text
    assert text.count("def test_edge") == 1


def test_prompt_has_nothing_about_the_fix_or_other_tests(workspace: Path):
    text = "".join(m.content for m in build_prompt(make_spec(), workspace).messages)
    for forbidden in (
        FIX_SHA,
        FIX_SHA[:7],
        BASE_SHA[:7],
        PR_URL,
        PR_TITLE,
        "4242",
        "2024-01-02",
        "PASS_TO_PASS_BODY",
        "test_untouched",
        "lockfiles",
        str(workspace),
    ):
        assert forbidden not in text, forbidden


def test_synthetic_prompt_includes_spec_text(workspace: Path):
    spec = make_spec(kind="synthetic", provenance=Provenance("authored"))
    text = user_text(build_prompt(spec, workspace, spec_text="# Frob\n\nfrob(n) returns n.\n"))
    assert "## Specification\n\n# Frob\n\nfrob(n) returns n.\n" in text
    assert "## Specification" not in user_text(build_prompt(spec, workspace))


def test_system_prompt_example_is_itself_a_parsable_edit():
    (edit,) = parse_edits(SYSTEM_PROMPT)
    assert edit.path == "path/to/file.py"


def test_symlinked_source_file_is_refused(workspace: Path, tmp_path_factory):
    secret = tmp_path_factory.mktemp("outside") / "secret"
    secret.write_text("TOP SECRET\n")
    (workspace / "src/lib/util.py").symlink_to(secret)
    with pytest.raises(SpecError) as info:
        build_prompt(make_spec(), workspace)
    assert info.value.kind == "unsafe_workspace_path"


def test_non_utf8_bytes_become_replacement_characters(workspace: Path):
    (workspace / "src/lib/core.py").write_bytes(b"s = '\xff'\n")
    assert "s = '\ufffd'\n" in user_text(build_prompt(make_spec(), workspace))


def test_fence_is_longer_than_any_backtick_run():
    assert fenced("a ````` b\n", "python") == "``````python\na ````` b\n``````\n"
    assert fenced("no newline") == "```\nno newline\n```\n"


def test_feedback_message_with_current_files():
    message = feedback_message(
        "2 tests still fail:\nE   assert 1 == 2\n", current_files=(("a.py", "x = 1\n"),)
    )
    assert message.role == "user"
    assert message.content == (
        "2 tests still fail:\nE   assert 1 == 2\n\nThe editable files now contain:\n\n### a.py\n\n```python\n"
        "x = 1\n```\n\nReply with SEARCH/REPLACE blocks that apply to the files as they are now.\n"
    )
