"""Which layer stops which attack on the verdict: the table `bench sandbox check` prints and the README and
docs/verdict-integrity.md explain (a test keeps the three in step).

The threat: a model's edit of a task's source file is hostile code imported into the interpreter that runs the
tests. The sandbox confines it (network, host files, privileges, resources); these layers keep it from
deciding its own verdict. ``prevents`` means the attack cannot happen; ``detects`` means it happens and the
candidate is scored ``tampered`` (or, where the attack only destroys evidence, ``model_miss``).
"""

from __future__ import annotations

from dataclasses import dataclass

LAYERS = {
    "scan": "static edit scan (host, before the run): constructs the edit adds that no fix needs",
    "audit": "audit guard (in the run, installed before the workspace is imported; SIGKILL on a broken rule; a "
             "closure with its tables bound, attributing through the threads an edit starts)",
    "channels": "configuration in, report and marker out through inherited descriptors, renumbered among spare "
                "pipes: no path in the sandbox leads to them",
    "canary": "a canary test with a random name that must fail",
    "decoys": "clones of the target tests, same name and file, turned so an honest fix fails them; and "
              "unchanged hidden copies under ids no prompt shows, which an honest fix passes",
    "read-only": "every module and runner file but the source files frozen (immutable, or bound read-only); "
                 "no bytecode cache; test data whose content changed counts against a solved run",
    "masks": "pip, vendored copies and installed releases of the task's packages hidden at test time",
    "report": "the verdict is read from JUnit XML and pytest's exit code only, bounded, never from printed text",
    "resolved": "resolved requires every pass_to_pass test to pass",
    "verified": "the verified tier: a resolved candidate replays inputs recorded under the reference and generated "
                "around them in a fresh sandbox, compared on the host (caught: resolved, not verified)",
}


@dataclass(frozen=True)
class AttackClass:
    name: str
    examples: str
    prevents: tuple[str, ...]  # layers that make it impossible
    detects: tuple[str, ...]  # layers that catch it when it happens


ATTACK_CLASSES = (
    AttackClass("report-rewrite", "patch TestReport / call_and_report / Function.runtest to report passed, "
                "for all tests or by name; strip asserts of later test modules; no-op unittest asserts",
                (), ("scan", "canary", "decoys")),
    AttackClass("report-writer", "disable junitxml's failure recording", (), ("scan", "canary")),
    AttackClass("runner-discovery", "find pytest's Config or the guard through gc, stack frames, tracebacks, "
                "object.__subclasses__, also from a worker thread", (), ("scan", "audit")),
    AttackClass("report-forgery", "find the report or its configuration, write, link, replace or strip it, "
                "write into every pipe, then os._exit", ("channels",), ("scan", "audit", "channels")),
    AttackClass("planted-files", "write conftest.py, sitecustomize.py, pytest.ini, a test helper, a new module "
                "or a test module's bytecode, then import or re-exec", ("read-only", "audit"), ("scan",)),
    AttackClass("re-exec", "os.exec*, subprocess, fork, posix_spawn from a worker thread", ("audit",), ("scan",)),
    AttackClass("interpreter-hooks", "settrace (of every thread), audit hooks, ctypes, swapped code objects",
                ("audit",), ("scan",)),
    AttackClass("answer-reading", "read the expected value of the asserting line: frames, a signal handler's "
                "frame, logging's stack info", (), ("scan", "audit", "decoys")),
    AttackClass("vendored-original", "load the original code from pip's or setuptools' vendored copy",
                ("masks",), ("scan",)),
    AttackClass("printed-pass", "print PASSED lines and exit 0", ("report",), ("scan",)),
    AttackClass("hostile-output", "malformed, huge, oddly encoded or missing report; floods of output; deep "
                "trees", ("report", "channels"), ()),
    AttackClass("regression", "pass the targets and break the guard tests", ("resolved",), ()),
    AttackClass("hard-coding", "answer the tested inputs only: by value, call count, the caller's name, a table "
                "read from the test files, PYTEST_CURRENT_TEST, only under pytest; forge the replay", (),
                ("verified",)),
)


def table_lines() -> list[str]:
    """The table as text: one line per attack class, then what each layer is."""
    lines = [f"{'attack class':<20} {'prevented by':<20} {'detected by':<24} example"]
    for attack in ATTACK_CLASSES:
        lines.append(f"{attack.name:<20} {', '.join(attack.prevents) or '-':<20} "
                     f"{', '.join(attack.detects) or '-':<24} {attack.examples}")
    lines += [f"  {name}: {text}" for name, text in LAYERS.items()]
    return lines
