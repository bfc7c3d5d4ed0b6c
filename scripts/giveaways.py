"""How many mutation tasks give their fault away on sight, by a stated rule (the task-quality issue's measure).

    python scripts/giveaways.py [--retired] [--list]

A mutant is a **giveaway** when its text alone marks the site, by one of these rules read from the released
file the mutant was made from (the pinned sdist, fetched into the harness's cache):

* ``return None`` in a function that returns a value on every other path: no other ``return`` in it is bare or
  returns ``None``, and its body cannot run off its end (``bench.mutate.operators.can_fall_through``: its last
  statement returns or raises, on every branch of a final ``if``, ``try`` or ``with``);
* a condition wrapped as ``not (...)`` in a file that writes no other condition that way;
* an anomaly the mutation adds to the file (``bench.mutate.anomalies``): a read of a local name that none of
  its assignments reaches, a test for None whose other side then reads the value, arguments in the reverse of
  the order the file's other calls use, and the rest that module lists;
* a contradiction the mutation adds (``bench.mutate.contradictions`` and the modules it reads: ``habits``,
  ``guards``, ``kinds``, ``known_order``, ``consistency``, ``lint_slips``): an operator or form the file writes
  nowhere else, a comparison or bound against the file's own habit, a statement or expression that no longer
  matches its twin within 100 lines, a test its own block contradicts, a guard that no longer guards what it
  reads, an index past a non-empty guard, a test repeated in one function, a loop that re-tests what it never
  changes, a value used against its kind, arguments whose order every reader knows, a sign on zero, a range that
  holds nothing; one operand against its habit (``consistency``: a flag tested the other way once, a literal or
  two operands combined by another operator once, a protocol method answering the opposite, a length test whose
  block reads fewer elements than it counts, a round constant made unround) and a slip a linter reports
  (``lint_slips``: a loop variable read after its loop, a test its enclosing test settles, a call asked for
  nothing, a value passed through when its type test fails); and a form the mutant leaves standing alone
  (``lone_forms``: a value that defaults to None used unguarded, a guard its twin branch keeps, a test of an
  ``if``/``elif`` chain negated once, parentheses over several lines holding one operand) or a global flag such
  as ``__debug__`` tested against its habit.

Prints, per operator and overall, how many mutation tasks there are and how many are giveaways; ``--list``
adds one line per giveaway; ``--retired`` measures the retired pool (tasks/_retired: the pool engine version 1
made) instead of the current one. Since engine version 2 the engine itself refuses the first two patterns, and
version 4 the anomalies and contradictions. Reads only what the pool holds: task specs and the releases they pin.
"""

from __future__ import annotations

import argparse
import ast
import collections
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src" / "python"))

NOT_WRAPPER = re.compile(r"\bnot \(")


def enclosing_function(tree: ast.Module, offset_line: int):
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= offset_line <= node.end_lineno:
            if best is None or node.lineno >= best.lineno:
                best = node
    return best


def own_returns(function) -> list:
    """The return statements of ``function`` itself, not of functions or classes defined inside it."""
    found, todo = [], list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return found


def returns_none_elsewhere(function, site_line: int) -> bool:
    """Whether ``function`` already returns None on some path other than the mutated ``return`` line."""
    for node in own_returns(function):
        if node.lineno != site_line and (node.value is None or
                                         (isinstance(node.value, ast.Constant) and node.value.value is None)):
            return True
    from bench.mutate.operators import can_fall_through

    return can_fall_through(function.body)  # running off its end returns None


def is_giveaway(spec, text: str) -> tuple[bool, str]:
    site = spec.mutation
    line = text.encode("utf-8")[: site.start].count(b"\n") + 1
    if site.operator == "return_none":
        function = enclosing_function(ast.parse(text), line)
        if function is None:
            return False, ""
        if not returns_none_elsewhere(function, line):
            return True, f"return None in {function.name}, which returns a value on every other path"
    if site.operator == "negate_condition" and site.replacement.startswith("not ("):
        if len(NOT_WRAPPER.findall(text)) == 0:
            return True, "not (...) in a file that writes no other condition that way"
    from bench.mutate.anomalies import added_anomaly

    anomaly = added_anomaly(text.encode("utf-8"), site.start, site.end, site.replacement)
    return (True, anomaly) if anomaly else (False, "")


def release_texts(specs) -> dict:
    """(sdist name, version, file) -> the released file's text, one unpacked release at a time."""
    from bench.source.sdist import fetch_sdist, unpack_sdist

    texts = {}
    by_release = collections.defaultdict(list)
    for spec in specs:
        by_release[spec.sdist].append(spec)
    for pin, members in sorted(by_release.items(), key=lambda item: (item[0].name, item[0].version)):
        with tempfile.TemporaryDirectory(prefix="giveaways-") as scratch:
            tree = unpack_sdist(fetch_sdist(pin), Path(scratch) / "tree")
            for spec in members:
                key = (pin.name, pin.version, spec.mutation.file)
                if key not in texts:
                    texts[key] = (tree / spec.mutation.file).read_text(encoding="utf-8")
    return texts


def main(argv=None) -> int:
    from bench.spec.load import discover, load_all

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="one line per giveaway")
    parser.add_argument("--retired", action="store_true", help="the retired pool (tasks/_retired) instead")
    args = parser.parse_args(argv)
    retired = ROOT / "tasks" / "_retired"
    paths = [p for p in discover(ROOT, retired=True) if (retired in p.parents) == args.retired]
    specs = [s for s in load_all(paths) if s.kind == "mutation"]
    texts = release_texts(specs)
    totals, giveaways, lines = collections.Counter(), collections.Counter(), []
    for spec in sorted(specs, key=lambda s: s.task_id):
        operator = spec.mutation.operator
        totals[operator] += 1
        found, why = is_giveaway(spec, texts[(spec.sdist.name, spec.sdist.version, spec.mutation.file)])
        if found:
            giveaways[operator] += 1
            lines.append(f"  {spec.task_id}: {why}")
    print(f"{'operator':<22}{'tasks':>7}{'giveaways':>11}")
    for operator, count in totals.most_common():
        print(f"{operator:<22}{count:>7}{giveaways[operator]:>11}")
    total, given = sum(totals.values()), sum(giveaways.values())
    print(f"{'all':<22}{total:>7}{given:>11}   giveaway rate {given / total:.3f}" if total else "no mutation tasks")
    if args.list:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
