from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.cli.run_folder import again_command, check_destination, folder_slug, run_folder
from bench.errors import UsageError

ROOT = Path("/checkout")


def test_an_ordinary_run_gets_a_new_folder_under_results_runs():
    folder = run_folder(ROOT, "scripted-study", out=None, name=None, reference=False)
    assert folder.parent == ROOT / "results" / "runs" / "scripted-study"
    assert re.fullmatch(r"\d{8}-\d{6}", folder.name)


def test_a_named_run_resumes_in_the_same_folder():
    assert run_folder(ROOT, "m", out=None, name="sweep-1", reference=False) == ROOT / "results/runs/m/sweep-1"


def test_only_update_reference_writes_the_committed_folder():
    assert run_folder(ROOT, "scripted-study", out=None, name=None, reference=True) == \
        ROOT / "results/study/scripted-study"


def test_out_is_taken_as_it_is():
    assert run_folder(ROOT, "m", out=Path("/tmp/x"), name=None, reference=False) == Path("/tmp/x")


def test_out_with_update_reference_names_the_reference_folder_itself():
    assert run_folder(ROOT, "m", out=Path("/tmp/x"), name=None, reference=True) == Path("/tmp/x")


@pytest.mark.parametrize("kwargs", [
    {"out": Path("/tmp/x"), "name": "a", "reference": False},
    {"out": None, "name": "a", "reference": True},
    {"out": None, "name": "../escape", "reference": False},
    {"out": None, "name": "a/b", "reference": False},
])
def test_conflicting_or_unsafe_choices_are_usage_errors(kwargs):
    with pytest.raises(UsageError):
        run_folder(ROOT, "m", **kwargs)


@pytest.mark.parametrize("model_id, folder", [
    ("ollama/llama3:8b", "ollama-llama3-8b"),
    ("scripted/study", "scripted-study"),  # the committed reference folders keep their names
    ("openai/gpt-4o-mini", "openai-gpt-4o-mini"),
    ("llamacpp/C:\\models\\x y.gguf", "llamacpp-C-models-x-y.gguf"),
    ("../..", "run"),
    (".hidden/-x", "hidden--x"),
])
def test_run_folder_names_are_safe_slugs_of_the_model_id(model_id, folder):
    assert folder_slug(model_id) == folder
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", folder_slug(model_id))


def _parse(argv):
    from bench.cli.main import build_parser

    return build_parser().parse_args(argv)


@pytest.mark.parametrize("argv, destination", [
    (["score", "--model", "openai/x", "--name", "sweep", "--turns", "3", "--both-conditions"], ["--name", "sweep"]),
    (["score", "--model", "openai/x", "--no-resume", "--tasks", "lib:click"], ["--out", "/runs/stamp"]),
    (["score", "--model", "openai/x", "--out", "/runs/mine", "--temperature", "0.5"], ["--out", "/runs/mine"]),
    (["score", "--model", "scripted", "--update-reference"], ["--update-reference"]),
])
def test_the_command_to_run_again_is_accepted_and_names_the_same_folder(argv, destination):
    import shlex

    args = _parse(argv)
    out = Path("/runs/mine") if args.out else Path("/runs/stamp")
    words = shlex.split(again_command(args, out, add=("--retry-errors",)))
    assert words[0] == "bench" and words[-len(destination):] == destination
    again = _parse(words[1:])  # argparse accepts it, and run_folder takes the destination it names
    folder = run_folder(ROOT, "m", out=again.out, name=again.name, reference=again.update_reference)
    assert folder == (ROOT / "results/runs/m/sweep" if args.name else
                      ROOT / "results/study/m" if args.update_reference else out)
    assert again.retry_errors and not again.no_resume
    changed = {k for k in vars(args) if getattr(again, k) != getattr(args, k)}
    assert changed <= {"out", "retry_errors", "no_resume", "run"}


def _folder(tmp_path, settings=None, tasks=("t1",)):
    import json

    out = tmp_path / "run"
    out.mkdir()
    (out / "results.jsonl").write_text("".join(json.dumps({"task_id": t}) + "\n" for t in tasks))
    if settings is not None:
        (out / "run.json").write_text(json.dumps(settings))
    return out


def test_a_folder_of_the_same_run_is_resumed(tmp_path):
    out = _folder(tmp_path, {"model": "m", "turns": 1})
    check_destination(tmp_path, out, {"model": "m", "turns": 1}, {"t1", "t2"}, reference=False, discard=False)


@pytest.mark.parametrize("settings, tasks, message", [
    ({"model": "m", "turns": 5}, {"t1"}, "turns differ"),
    ({"model": "m", "turns": 1}, {"t2"}, "1 task(s) this run does not select (t1)"),
    (None, {"t1"}, "without a run.json"),
])
def test_a_folder_of_another_run_is_refused_unless_discarded(tmp_path, settings, tasks, message):
    out = _folder(tmp_path, settings)
    with pytest.raises(UsageError, match=re.escape(message)):
        check_destination(tmp_path, out, {"model": "m", "turns": 1}, tasks, reference=False, discard=False)
    check_destination(tmp_path, out, {"model": "m", "turns": 1}, tasks, reference=False, discard=True)


def test_a_committed_reference_is_refused_even_discarded_unless_update_reference(tmp_path):
    out = tmp_path / "results" / "study" / "new-model"  # under results/study/, even before it exists
    for discard in (False, True):
        with pytest.raises(UsageError, match="committed reference"):
            check_destination(tmp_path, out, {}, None, reference=False, discard=discard)
    check_destination(tmp_path, out, {}, None, reference=True, discard=False)
