"""What the repair loop tells a model after a failed turn, under each feedback condition.

docs/ARCHITECTURE.md §2 "What a model is told" is the contract, per condition and per outcome:

``full``        the verdict in one sentence, then each failing test's id, outcome and cleaned output (at most
                ``SHOWN_TESTS`` of them, each at most ``clean_text``'s limit), then how many more fail.
``count-only``  the same sentence reduced to numbers: how many of the task's tests fail, and never which.

An edit that passes every target test but breaks a pass_to_pass test is a failure (not resolved): both
conditions say that the targets pass and that the edit broke tests that passed before it, and ``full`` names
each broken test, with its output or, when it did not run, saying so. No text says "all … passed" of a
failing verdict.

Under ``bench score --feed-divergences`` a resolved turn the verified tier finds diverging is fed back too:
``full`` names the first divergence (function, input, expected, got), ``count-only`` how many probes diverged.
Without the flag the probes stay the hidden check and nothing of them reaches a model.
"""

from __future__ import annotations

import re

from bench.loop.signature import normalise_error_line
from bench.verdict.grade import Verdict

SHOWN_TESTS = 8  # failing tests whose output the full condition shows; the rest are counted
RESOLVED = "All target tests pass."
_NOT_RUN = ("not run", "it did not run (no result in the test report)", "")

_DURATION = re.compile(r"\bin \d+(?:\.\d+)?s\b|\b\d+(?:\.\d+)?s call\b")
_SANDBOX_PATHS = re.compile(r"(/work/|/env/venv/\S*?/site-packages/|/overlay/venv/\S*?/site-packages/)")


def clean_text(text: str, limit: int = 1500) -> str:
    """Feedback must be deterministic: strip timings and sandbox-absolute paths, trim long output."""
    text = _SANDBOX_PATHS.sub("", text)
    text = _DURATION.sub("", text)
    lines = [normalise_error_line(line) if "0x" in line else line.rstrip() for line in text.splitlines()]
    text = "\n".join(lines).strip()
    return text if len(text) <= limit else text[: limit - 200] + "\n[…]\n" + text[-180:]


def tampered_feedback(verdict: Verdict) -> str:
    return f"Your edit was rejected as an attempt to influence the verdict ({verdict.reason})."


def invalid_edit_feedback(reason: str, detail: str) -> str:
    return f"Your reply could not be applied ({reason}): {detail}. No file was changed."


def full_feedback(verdict: Verdict, details) -> str:
    """The ``full`` condition: ``details`` are the verdict's failures, (test id, outcome, message, output)."""
    if verdict.outcome == "tampered":
        return tampered_feedback(verdict)
    if verdict.resolved:
        return RESOLVED
    if verdict.solved:  # every target passes; pass_to_pass tests broke
        broke = _broke(verdict)
        lines = [broke[:1].upper() + broke[1:] + ":"]
        named = {test_id for test_id, *_ in details}
        details = (*details, *((test_id, *_NOT_RUN) for test_id in verdict.pass_to_pass_broken
                               if test_id not in named))
    else:
        lines = [f"The tests still fail: {verdict.reason}."]
    for test_id, outcome, message, detail in details[:SHOWN_TESTS]:
        lines.append(f"\n### {test_id} ({outcome})\n{clean_text(detail or message)}")
    if len(details) > SHOWN_TESTS:
        lines.append(f"\n(and {len(details) - SHOWN_TESTS} more failing tests)")
    return "\n".join(lines)


def count_feedback(verdict: Verdict, spec) -> str:
    """The ``count-only`` condition: numbers only, never a test's name or output."""
    if verdict.outcome == "tampered":
        return tampered_feedback(verdict)
    if verdict.resolved:
        return RESOLVED
    failing = len(set(verdict.still_failing) | set(verdict.pass_to_pass_broken))
    total = len(spec.fail_to_pass) + len(spec.pass_to_pass)
    counted = f"{failing} of {total} tests fail"
    if verdict.solved:
        return f"{counted}: {_broke(verdict)}."
    return counted + "."


def divergence_feedback(verification, condition: str) -> str:
    """What a model is told of a resolved edit whose functions the verified tier found answering an input
    otherwise than the reference's (only under ``--feed-divergences``)."""
    head = ("Every test passes now, but the fix is not yet correct: a hidden check that calls your functions "
            "on other inputs and compares them with the reference's")
    if condition == "full":
        return f"{head} found a difference. The first one:\n\n{clean_text(verification.divergence)}"
    return f"{head} found {verification.diverged} difference{'s' if verification.diverged != 1 else ''}."


def _broke(verdict: Verdict) -> str:
    broken = len(verdict.pass_to_pass_broken)
    return f"the target tests pass now, but your edit broke {broken} test{'s' if broken != 1 else ''} that passed " \
           "before it"
