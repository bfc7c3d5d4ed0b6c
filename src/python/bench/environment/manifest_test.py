import json
from dataclasses import replace

from bench.environment.manifest import InterpreterInfo, Manifest, build_manifest, harness_version

INFO = InterpreterInfo("cpython", "3.13.5", "cpython-313-x86_64-linux-gnu", "linux-x86_64", "x86_64", "glibc", "2.41")
INSTALLED = (
    {"name": "six", "version": "1.17.0", "installer": "pip", "record_sha256": "r1"},
    {"name": "pip", "version": "25.1.1", "installer": "pip", "record_sha256": "r2"},
    {"name": "pyproject_hooks", "version": "1.3.3", "installer": "pip", "record_sha256": "r3"},
)
WHEELS = {
    "six": ("six-1.17.0-py2.py3-none-any.whl", "a" * 64, "lock"),
    "pyproject-hooks": ("pyproject_hooks-1.3.3-py3-none-any.whl", "b" * 64, "built-from-sdist:" + "c" * 64),
}


def _manifest() -> Manifest:
    return build_manifest(image_digest="sha256:" + "d" * 64, lock_sha256="e" * 64, env_key="f" * 64,
                          interpreter=INFO, installed=INSTALLED, wheels=WHEELS)


def test_manifest_joins_installed_distributions_with_the_wheels_they_came_from():
    manifest = _manifest()
    assert [d.name for d in manifest.distributions] == ["pip", "pyproject_hooks", "six"]
    six = manifest.distribution("six")
    assert (six.wheel_sha256, six.origin, six.record_sha256) == ("a" * 64, "lock", "r1")
    hooks = manifest.distribution("pyproject-hooks")
    assert hooks.origin == "built-from-sdist:" + "c" * 64
    pip = manifest.distribution("pip")
    assert (pip.wheel_filename, pip.wheel_sha256, pip.origin) == ("", "", "image")


def test_manifest_canonical_json_is_stable_and_round_trips():
    first, second = _manifest(), _manifest()
    assert first.canonical_json() == second.canonical_json()
    assert first.sha256 == second.sha256
    assert " " not in first.canonical_json().replace("x86_64-linux-gnu", "")  # no whitespace separators
    assert Manifest.from_dict(json.loads(first.canonical_json())) == first


def test_manifest_hash_changes_with_any_input():
    manifest = _manifest()
    assert replace(manifest, lock_sha256="0" * 64).sha256 != manifest.sha256
    assert replace(manifest, harness_commit="1" * 40).sha256 != manifest.sha256
    assert replace(manifest, interpreter=replace(INFO, version="3.13.6")).sha256 != manifest.sha256


def test_manifest_carries_harness_version_and_no_host_paths():
    manifest = _manifest()
    assert manifest.harness_version == harness_version() == "0.1.0"
    assert len(manifest.harness_commit) in (0, 40)
    assert "/root" not in manifest.canonical_json() and "/tmp" not in manifest.canonical_json()


def test_interpreter_info_gives_the_venv_site_packages():
    assert INFO.site_packages == "lib/python3.13/site-packages"
    assert INFO.version_info == (3, 13)
