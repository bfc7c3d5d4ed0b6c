"""No answer in the environment: every file a scored run of a mutation task sees — image, venvs, overlay,
work dir, zip and wheel members included, less the masks — is searched for the released module of every task
of its release and the released text of each mutated function (each task's own answer, less the names masked
for every task and the files masked for that task because they hold its answer under another name).

The releases pinned here are the ones whose originals the environment used to carry: idna 3.10 (pip vendors
it byte for byte, and Debian's bundled pip wheel holds a copy), more-itertools (setuptools and
pkg_resources vendor it) and boltons 24.1.0 (its urlutils.py carries a copy of dictutils' OrderedMultiDict: a
mutant of one copy left the other in the work dir). `scripts/leak_scan.py` runs the same search over every release of the pool.
"""

from __future__ import annotations

import pytest

from bench.score.no_leak import release_leaks, release_needles
from bench.spec.load import discover, load_all
from bench.testing.support import checkout_root, prepared_task

RELEASES = (("idna", "3.10"), ("more-itertools", "10.5.0"), ("boltons", "24.1.0"))


def _release(name: str, version: str):
    """The pool's mutation tasks of one release (a library may have tasks from several releases)."""
    specs = [
        spec
        for spec in load_all(discover(checkout_root()))
        if spec.kind == "mutation" and (spec.sdist.name, spec.sdist.version) == (name, version)
    ]
    assert specs, f"no mutation task of {name}=={version} in the pool"
    return specs


@pytest.mark.parametrize("name,version", RELEASES)
def test_no_visible_file_holds_the_released_code(name, version, tmp_path):
    specs = _release(name, version)
    needles = release_needles(specs, tmp_path)
    assert len(needles) > len(specs)  # the module of each task, and most mutated functions
    task = prepared_task(specs[0].task_id, tmp_path / "prepared")
    assert release_leaks(task, specs, needles, tmp_path) == ()
    assert task.content_masks == tuple(sorted(task.content_masks))  # what its scored runs hide by content


def test_the_search_finds_the_original_where_it_is_not_masked(tmp_path):
    """The same search with the masks left out finds pip's vendored idna: the test above can fail."""
    from bench.verdict.leak_scan import environment_roots, scan

    specs = _release("idna", "3.10")
    task = prepared_task(specs[0].task_id, tmp_path / "prepared")
    found = scan(environment_roots(task.mounts, task.image_root), (), release_needles(specs, tmp_path))
    assert any("pip/_vendor/idna/" in leak.where for leak in found)


BUCKET_TASK = "mutation.more-itertools.10.5.0.7dcd156a"  # its mutant is in bucket.__init__
BORROW_BUCKET = '''
import glob as _g, importlib.util as _u
_p = _g.glob("/env/venv/lib/python3*/site-packages/setuptools/_vendor/importlib_metadata/_itertools.py")[0]
_s = _u.spec_from_file_location("_borrowed", _p)
_m = _u.module_from_spec(_s)
_s.loader.exec_module(_m)
bucket = _m.bucket
'''


def test_a_copy_under_another_name_is_masked_for_the_task_it_answers(tmp_path):
    """setuptools vendors importlib_metadata, whose _itertools.py carries more-itertools' `bucket` word for
    word: masked (by content) in the scored runs of the task whose mutant sits in `bucket`, so borrowing it
    fails there (run-time layers alone: the static scan would flag the loader first)."""
    from bench.score.evaluate import evaluate
    from bench.testing.support import whole_file_edit

    task = prepared_task(BUCKET_TASK, tmp_path / "prepared")
    assert [p for p in task.content_masks if p.endswith("/importlib_metadata/_itertools.py")]
    tree = tmp_path / "tree"
    import shutil

    shutil.copytree(task.pristine, tree, symlinks=True)
    path = task.spec.mutation.file
    source = (tree / path).read_text()
    result = evaluate(task, tree, whole_file_edit(path, source, source + BORROW_BUCKET), scan=False)
    assert (result.outcome, result.resolved) == ("model_miss", False), result.reason
