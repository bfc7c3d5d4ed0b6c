"""Print the harness's package import graph (from the AST, lazy imports inside functions included), its cycles
between packages, imports against the layer order (docs/ARCHITECTURE.md) and imports of another package's
private modules (``pkg/_name.py``).

    python scripts/layers.py [--src src/python] [--modules]

It also lists comparisons of a task's kind with a kind's name outside ``bench.kinds`` (the task-kind seam,
``bench.spec.kind_registry``) and a few modules that exist for one kind.

``--modules`` also prints module-level cycles inside each package. Exit 1 when any of the four exists; the
test ``tests/layers_test.py`` runs it under ``./pants test ::``, so the build refuses such an import.
Imports by name (``importlib`` with a string, how provider and backend registries load plugins) are not edges.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from pathlib import Path

TOP = "bench"

# Lowest first. A package may import the top-level modules and packages of lower layers only; "(top)" is the
# bench package's own modules (errors, variables, progress). A new package must be given a layer here.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("(top)",),
    ("store", "operators"),
    ("spec", "loop", "model", "sandbox"),
    ("environment", "source", "verdict"),
    ("attempt", "mutate", "cluster"),
    ("gate", "report", "study"),
    ("probes",),  # the verified tier: probe sets made under the reference, replayed against a candidate
    ("score", "mine"),
    ("kinds",),  # what differs between task kinds; loaded by name through bench.spec.kind_registry
    ("cli",),
    ("testing",),  # what tests and benchmarks use: may import anything, imported by nothing of the harness
)


# Task kinds are asked through bench.spec.kind_registry, not compared by name. The modules below name one kind on
# purpose, each because it exists for that kind alone.
KIND_NAMES = ("pr", "mutation", "synthetic")
NAMES_A_KIND = {
    "bench.source.synthetic": "the synthetic source refuses a spec of another kind",
    "bench.cli.validate": "`bench validate --synthetic` checks authored tasks' reference solutions",
    "bench.cli.admit": "`bench admit` sends mutation candidates to the per-release batch gate",
    "bench.cli.pool": "`bench pool stats`' yield table is the mutation engine's",
}


def module_name(path: Path, src: Path) -> str:
    """Dotted name; a package's ``__init__`` keeps its suffix so that it belongs to its own package."""
    return ".".join(path.relative_to(src).with_suffix("").parts)


def imports_of(path: Path, module: str) -> set[str]:
    """Every ``bench.*`` module this file imports, at any depth of the file (lazy imports count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name == TOP or name.startswith(TOP + ".")}


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else "(top)"


def graph(src: Path, *, tests: bool = False) -> dict[str, set[str]]:
    """module -> modules it imports (only modules that exist under ``src``)."""
    files = {module_name(p, src): p for p in sorted((src / TOP).rglob("*.py"))
             if tests or not (p.name.endswith("_test.py") or p.name == "conftest.py")}
    edges: dict[str, set[str]] = {}
    for module, path in files.items():
        edges[module] = {_resolve(name, files) for name in imports_of(path, module)} & set(files)
        edges[module].discard(module)
    return edges


def _resolve(name: str, files) -> str:
    """The file an imported name lives in: a module, a package's __init__, or (a name imported from a module)
    its parent's."""
    for candidate in (name, f"{name}.__init__", name.rpartition(".")[0], f"{name.rpartition('.')[0]}.__init__"):
        if candidate in files:
            return candidate
    return name


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more nodes that each reach every other one (each sorted; the list sorted)."""
    reach = {node: reachable(edges, node) for node in edges}
    groups = {tuple(sorted({node} | {other for other in reach[node] if node in reach.get(other, ())}))
              for node in edges}
    return sorted(list(group) for group in groups if len(group) > 1)


def reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(edges.get(start, ()))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(edges.get(node, ()))
    return seen


def package_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    packages: dict[str, set[str]] = defaultdict(set)
    for module, targets in edges.items():
        packages[package_of(module)]
        for target in targets:
            if package_of(target) != package_of(module):
                packages[package_of(module)].add(package_of(target))
    return dict(packages)


def private_crossings(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, private module) pairs where the private module lives in another package."""
    return sorted((module, target) for module, targets in edges.items() for target in targets
                  if target.rpartition(".")[2].startswith("_") and not target.endswith(".__init__")
                  and package_of(target) != package_of(module))


def layer_of(package: str) -> int | None:
    return next((index for index, layer in enumerate(LAYERS) if package in layer), None)


def against_layers(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """(importer, imported) module pairs whose packages break the layer order: the imported package is not in
    a lower layer, or either has no layer."""
    found = []
    for module, targets in edges.items():
        mine = layer_of(package_of(module))
        for target in targets:
            theirs = layer_of(package_of(target))
            if package_of(target) != package_of(module) and (mine is None or theirs is None or theirs >= mine):
                found.append((module, target))
    return sorted(found)


def _is_kind_field(node: ast.AST) -> bool:
    """``x.kind``, ``x["kind"]`` or ``x.get("kind")``."""
    if isinstance(node, ast.Attribute):
        return node.attr == "kind"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "kind"
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == "kind")


def kind_branches(src: Path) -> list[tuple[str, int]]:
    """(module, line) of each comparison of a task's kind with a kind's name outside bench.kinds and the
    modules of NAMES_A_KIND."""
    found = []
    for path in sorted((src / TOP).rglob("*.py")):
        module = module_name(path, src)
        if path.name.endswith("_test.py") or package_of(module) == "kinds" or module in NAMES_A_KIND:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            names = [o for o in operands if isinstance(o, ast.Constant) and o.value in KIND_NAMES]
            if names and any(_is_kind_field(o) for o in operands):
                found.append((module, node.lineno))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1] / "src" / "python")
    parser.add_argument("--modules", action="store_true", help="also print module cycles inside packages")
    args = parser.parse_args(argv)
    edges = graph(args.src)
    packages = package_graph(edges)
    print("package imports (lazy imports included):")
    for package in sorted(packages):
        print(f"  {package:<12} -> {', '.join(sorted(packages[package])) or '-'}")
    package_cycles = cycles(packages)
    print(f"cycles between packages: {len(package_cycles)}")
    for component in package_cycles:
        print("  " + " <-> ".join(component))
    layered = against_layers(edges)
    print(f"imports against the layer order: {len(layered)}")
    for importer, target in layered:
        print(f"  {importer} -> {target}")
    crossings = private_crossings(edges)
    print(f"cross-package imports of private modules: {len(crossings)}")
    for importer, target in crossings:
        print(f"  {importer} -> {target}")
    branches = kind_branches(args.src)
    print(f"task kinds compared by name outside their seam: {len(branches)}")
    for module, line in branches:
        print(f"  {module}:{line}")
    if args.modules:
        module_cycles = cycles(edges)
        print(f"module cycles: {len(module_cycles)}")
        for component in module_cycles:
            print("  " + " <-> ".join(component))
    return 1 if package_cycles or layered or crossings or branches else 0


if __name__ == "__main__":
    sys.exit(main())
