"""The layer order of docs/ARCHITECTURE.md, enforced: ``scripts/layers.py`` over the harness's source finds no
cycle between packages, no import against the layers and no cross-package import of a private module; and it
does find each of those when one is planted in a copy of the source (a lazy import inside a function counts)."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from bench.testing.support import checkout_root


def _layers():
    path = checkout_root() / "scripts" / "layers.py"
    spec = importlib.util.spec_from_file_location("layers_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def source_copy(tmp_path) -> Path:
    shutil.copytree(checkout_root() / "src" / "python" / "bench", tmp_path / "bench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_the_harness_keeps_its_layers(capsys):
    assert _layers().main(["--src", str(checkout_root() / "src" / "python")]) == 0
    out = capsys.readouterr().out
    assert "cycles between packages: 0" in out
    assert "imports against the layer order: 0" in out
    assert "cross-package imports of private modules: 0" in out


def test_a_lazy_import_against_the_layers_fails_the_check(source_copy, capsys):
    atomic = source_copy / "bench" / "store" / "atomic.py"
    lazy = "\n\ndef _later():\n    from bench.score.runner import run\n    return run\n"
    atomic.write_text(atomic.read_text() + lazy)
    assert _layers().main(["--src", str(source_copy)]) == 1
    out = capsys.readouterr().out
    assert "  bench.store.atomic -> bench.score.runner" in out
    assert "cycles between packages: 1" in out


def test_a_private_module_of_another_package_fails_the_check(source_copy, capsys):
    (source_copy / "bench" / "store" / "_scratch.py").write_text("VALUE = 1\n")
    report = source_copy / "bench" / "report" / "console.py"
    report.write_text(report.read_text() + "\nfrom bench.store._scratch import VALUE  # noqa: E402\n")
    assert _layers().main(["--src", str(source_copy)]) == 1
    out = capsys.readouterr().out
    assert "cross-package imports of private modules: 1" in out
    assert "  bench.report.console -> bench.store._scratch" in out
    assert "imports against the layer order: 0" in out


def test_a_package_without_a_layer_fails_the_check(source_copy, capsys):
    (source_copy / "bench" / "newpkg").mkdir()
    (source_copy / "bench" / "newpkg" / "__init__.py").write_text("from bench.store import atomic\n")
    assert _layers().main(["--src", str(source_copy)]) == 1
    assert "  bench.newpkg.__init__ -> bench.store.atomic" in capsys.readouterr().out


def test_a_task_kind_compared_by_name_outside_its_seam_fails_the_check(source_copy, capsys):
    evaluate = source_copy / "bench" / "score" / "evaluate.py"
    planted = '\n\ndef _is_synthetic(spec):\n    return spec.kind == "synthetic"\n'
    text = evaluate.read_text()
    evaluate.write_text(text + planted)
    assert _layers().main(["--src", str(source_copy)]) == 1
    out = capsys.readouterr().out
    assert "task kinds compared by name outside their seam: 1" in out
    assert f"  bench.score.evaluate:{text.count(chr(10)) + 4}" in out
    assert "imports against the layer order: 0" in out
