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
    "audit": "audit guard (in the run, installed before the workspace is imported; SIGKILL on a broken rule)",
    "canary": "canary tests with random names, one must pass and one must fail",
    "read-only": "tests, conftest.py files and runner config bound read-only",
    "masks": "pip, vendored copies and installed releases of the task's packages hidden at test time",
    "report": "the verdict is read from JUnit XML and pytest's exit code only, bounded, never from printed text",
    "resolved": "resolved requires every pass_to_pass test to pass",
}


@dataclass(frozen=True)
class AttackClass:
    name: str
    examples: str
    prevents: tuple[str, ...]  # layers that make it impossible
    detects: tuple[str, ...]  # layers that catch it when it happens


ATTACK_CLASSES = (
    AttackClass("report-rewrite", "patch TestReport / call_and_report / Function.runtest to report passed",
                (), ("scan", "canary")),
    AttackClass("report-writer", "disable junitxml's failure recording", (), ("scan", "canary")),
    AttackClass("runner-discovery", "find pytest's Config through gc, stack frames or tracebacks",
                (), ("scan", "audit")),
    AttackClass("report-forgery", "read the report path, write or strip the XML (at exit, then os._exit)",
                ("audit",), ("scan",)),
    AttackClass("planted-files", "write conftest.py, sitecustomize.py, pytest.ini or a test file, then re-exec",
                ("read-only", "audit"), ("scan",)),
    AttackClass("re-exec", "os.exec*, subprocess, fork to run the tests another way", ("audit",), ("scan",)),
    AttackClass("interpreter-hooks", "settrace, audit hooks, ctypes, swapped code objects", ("audit",),
                ("scan",)),
    AttackClass("vendored-original", "load the original code from pip's or setuptools' vendored copy",
                ("masks",), ("scan",)),
    AttackClass("printed-pass", "print PASSED lines and exit 0", ("report",), ("scan",)),
    AttackClass("hostile-output", "malformed, huge or missing report; floods of output; deep trees",
                ("report",), ()),
    AttackClass("regression", "pass the targets and break the guard tests", ("resolved",), ()),
)


def table_lines() -> list[str]:
    """The table as text: one line per attack class, then what each layer is."""
    lines = [f"{'attack class':<20} {'prevented by':<20} {'detected by':<14} example"]
    for attack in ATTACK_CLASSES:
        lines.append(f"{attack.name:<20} {', '.join(attack.prevents) or '-':<20} "
                     f"{', '.join(attack.detects) or '-':<14} {attack.examples}")
    lines += [f"  {name}: {text}" for name, text in LAYERS.items()]
    return lines
