"""Small helpers the environment tests share: the image they run on and tiny repositories to lock and test."""

from __future__ import annotations

import functools
from pathlib import Path

TEST_IMAGE = "trixie-py313-slim"  # same interpreter as the scoring image, smaller; enough for pure Python


@functools.cache
def scoring_test_image():
    from bench.environment.image import ensure_image

    return ensure_image(TEST_IMAGE)


def write_files(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def tiny_src_repo(root: Path) -> Path:
    """A setuptools project in src/ layout whose tests need the ``test`` extra (six)."""
    return write_files(root, {
        "pyproject.toml": (
            '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
            '[project]\nname = "tiny"\nversion = "0.1.0"\n\n'
            '[project.optional-dependencies]\ntest = ["six"]\n'
        ),
        "src/tiny/__init__.py": "from importlib.metadata import version\n\n__version__ = version('tiny')\n\n\n"
                                "def double(x):\n    return 2 * x\n",
        "tests/test_tiny.py": "import six\n\nimport tiny\n\n\ndef test_double():\n    assert tiny.double(2) == 4\n\n\n"
                              "def test_metadata_and_extra():\n    assert tiny.__version__ == '0.1.0' and six.PY3\n",
    })


def flat_repo(root: Path, *, failing: bool = False) -> Path:
    """Loose modules and tests, no build configuration (like a synthetic task's checkout)."""
    expected = 5 if failing else 4
    return write_files(root, {
        "calc.py": "def add(a, b):\n    return a + b\n",
        "tests/test_calc.py": f"from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == {expected}\n",
    })


def counted_steps(monkeypatch, module) -> list[str]:
    """Record the ``what`` of every sandboxed step ``module`` runs (through its ``run_step``), still running it."""
    steps: list[str] = []
    run_step = module.run_step

    def counting(context, argv, **kwargs):
        steps.append(kwargs["what"])
        return run_step(context, argv, **kwargs)

    monkeypatch.setattr(module, "run_step", counting)
    return steps
