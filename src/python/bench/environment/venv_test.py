from pathlib import Path

import pytest

from bench.environment._sandboxed import run_step
from bench.testing.environment import flat_repo, scoring_test_image, tiny_src_repo
from bench.environment.lock import SYNTHETIC_LOCK, checkout_path, load_lock, resolve_lock
from bench.environment.venv import (
    build_count,
    copy_count,
    ensure_venv,
    env_key,
    prepare_workspace_env,
    reuse_count,
)

SIX_WHEEL_SHA = "4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274"


def _pytest(environment, run_env, workspace: Path):
    argv = run_env.argv("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
    return run_step(environment.context, argv, what="pytest", workdir=workspace, mounts=run_env.mounts,
                    env=run_env.env, check=False)


@pytest.fixture(scope="module")
def synthetic_env(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    lock = load_lock(checkout_path(SYNTHETIC_LOCK))
    built_before, reused_before = build_count(), reuse_count()
    first = ensure_venv(lock, scoring_test_image(), cache_dir=cache)
    return cache, lock, first, (built_before, reused_before)


def test_env_key_is_a_deterministic_hash_of_image_lock_and_interpreter():
    key = env_key("sha256:" + "a" * 64, "b" * 64, "/usr/bin/python3")
    assert key == env_key("sha256:" + "a" * 64, "b" * 64, "/usr/bin/python3")
    assert len(key) == 64 and int(key, 16) >= 0
    assert key != env_key("sha256:" + "c" * 64, "b" * 64, "/usr/bin/python3")
    assert key != env_key("sha256:" + "a" * 64, "c" * 64, "/usr/bin/python3")
    assert key != env_key("sha256:" + "a" * 64, "b" * 64, "/usr/bin/python3.13")


def test_second_ensure_venv_with_the_same_key_builds_nothing(synthetic_env):
    cache, lock, first, (built_before, reused_before) = synthetic_env
    assert first.reused is False and build_count() == built_before + 1
    marker = (first.root / "environment.json").stat().st_mtime_ns
    second = ensure_venv(lock, scoring_test_image(), cache_dir=cache)
    assert second.reused is True
    assert build_count() == built_before + 1 and reuse_count() == reused_before + 1
    assert (second.env_key, second.venv_path, second.manifest) == (first.env_key, first.venv_path, first.manifest)
    assert (first.root / "environment.json").stat().st_mtime_ns == marker
    assert [p.name for p in (cache / "venvs").iterdir() if not p.name.startswith(".")
            and p.name != "by-requirements"] == [first.env_key]


def test_a_lock_pinning_the_same_requirements_under_another_header_copies_the_venv(synthetic_env, tmp_path):
    from bench.environment.lock import Lock

    cache, lock, first, _ = synthetic_env
    other = Lock.from_text("# resolved as of another day\n" + lock.text)
    built, copied = build_count(), copy_count()
    second = ensure_venv(other, scoring_test_image(), cache_dir=cache)
    assert (build_count(), copy_count()) == (built, copied + 1)
    assert second.env_key != first.env_key and second.manifest.lock_sha256 == other.sha256
    assert second.manifest.distributions == first.manifest.distributions
    assert (second.root / "lock.txt").read_text() == other.text
    assert (first.root / "lock.txt").read_text() == lock.text  # the copy never wrote through a shared link
    flat_repo(tmp_path / "repo")
    run_env = prepare_workspace_env(tmp_path / "repo", second, overlay_dir=tmp_path / "overlay")
    assert _pytest(second, run_env, tmp_path / "repo").exit_code == 0


def test_the_requirements_key_parts_by_pins_interpreter_and_sdist_policy_not_by_header(synthetic_env):
    from bench.environment.lock import Lock
    from bench.environment.venv_reuse import requirements_key

    _, lock, first, _ = synthetic_env
    image = scoring_test_image()
    same = requirements_key(image.digest, Lock.from_text("# header\n" + lock.text), "/usr/bin/python3", True)
    assert same == requirements_key(image.digest, lock, "/usr/bin/python3", True)
    changed = Lock.from_text(lock.text.replace(lock.requirements[0].hashes[0], "0" * 64, 1))
    assert requirements_key(image.digest, changed, "/usr/bin/python3", True) != same
    assert requirements_key(image.digest, lock, "/usr/bin/python3.13", True) != same
    assert requirements_key(image.digest, lock, "/usr/bin/python3", False) != same


def test_manifest_records_interpreter_and_every_locked_distribution(synthetic_env):
    _, lock, environment, _ = synthetic_env
    manifest = environment.manifest
    assert manifest.env_key == environment.env_key
    assert manifest.lock_sha256 == lock.sha256
    assert manifest.image_digest == scoring_test_image().digest
    assert manifest.interpreter.version.startswith("3.13.")
    assert manifest.interpreter.platform == "linux-x86_64"
    for requirement in lock.requirements:
        installed = manifest.distribution(requirement.name)
        assert installed is not None and installed.version == requirement.version
        assert installed.origin == "lock" and installed.wheel_sha256 in requirement.hashes
        assert installed.installer == "pip" and len(installed.record_sha256) == 64
    assert manifest.distribution("pip").origin == "image"  # from the image's ensurepip, not the lock


def test_synthetic_lock_installs_and_runs_pytest_on_a_flat_repository(synthetic_env, tmp_path):
    _, _, environment, _ = synthetic_env
    workspace = flat_repo(tmp_path / "ws")
    run_env = prepare_workspace_env(workspace, environment)
    assert run_env.mode == "path"
    result = _pytest(environment, run_env, workspace)
    assert result.exit_code == 0, result.stdout.decode() + result.stderr.decode()
    assert b"1 passed" in result.stdout


def test_a_failing_test_fails_in_the_sandbox(synthetic_env, tmp_path):
    _, _, environment, _ = synthetic_env
    workspace = flat_repo(tmp_path / "ws", failing=True)
    result = _pytest(environment, prepare_workspace_env(workspace, environment), workspace)
    assert result.exit_code == 1 and b"1 failed" in result.stdout


def test_the_shared_venv_is_read_only_during_a_run(synthetic_env, tmp_path):
    _, _, environment, _ = synthetic_env
    workspace = flat_repo(tmp_path / "ws")
    run_env = prepare_workspace_env(workspace, environment)
    argv = run_env.argv("-c", "open('/env/venv/planted.py', 'w')")
    result = run_step(environment.context, argv, what="write attempt", workdir=workspace, mounts=run_env.mounts,
                      env=run_env.env, check=False)
    assert result.exit_code == 1 and b"Read-only file system" in result.stderr
    assert not (environment.venv_path / "planted.py").exists()


def test_pytest_runs_from_the_cached_venv_against_an_editable_install(tmp_path):
    repo = tiny_src_repo(tmp_path / "repo")
    lock = resolve_lock(repo, image=scoring_test_image(), cutoff="2026-11-20")
    environment = ensure_venv(lock, scoring_test_image())
    assert environment.manifest.distribution("six").wheel_sha256 == SIX_WHEEL_SHA
    run_env = prepare_workspace_env(repo, environment)
    assert run_env.mode == "editable"
    result = _pytest(environment, run_env, repo)
    assert result.exit_code == 0, result.stdout.decode() + result.stderr.decode()
    assert b"2 passed" in result.stdout  # one test reads the installed metadata of the repository
    assert environment.manifest.distribution("tiny") is None  # the repo went into the overlay, not the venv
    assert not list(environment.venv_path.glob("lib/python3.13/site-packages/*tiny*"))
    again = ensure_venv(lock, scoring_test_image())
    assert again.reused and again.env_key == environment.env_key


def test_python_m_venv_runs_once_per_image_and_every_build_starts_from_its_files(tmp_path, monkeypatch):
    import bench.environment.venv as venv_module
    from bench.environment.lock import Lock

    from bench.testing.environment import counted_steps

    steps = counted_steps(monkeypatch, venv_module)
    lock = load_lock(checkout_path(SYNTHETIC_LOCK))
    first = ensure_venv(lock, scoring_test_image(), cache_dir=tmp_path)
    # Another pin set (the same pins without one's hash would be refused): the lock minus its last entry.
    entries = lock.text.rstrip("\n").split("\n")
    starts = [i for i, line in enumerate(entries) if line and not line.startswith((" ", "#"))]
    other = Lock.from_text("\n".join(entries[:starts[-1]]) + "\n")
    second = ensure_venv(other, scoring_test_image(), cache_dir=tmp_path)
    assert steps.count("venv creation") == 1 and steps.count("offline install of the lock") == 2
    skeleton = next((tmp_path / "venvs" / ".skeletons").glob("*/venv"))

    def files(root):
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
                if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts}

    made = files(skeleton)
    for environment in (first, second):
        held = files(environment.venv_path)
        assert {name: held[name] for name in made} == made  # what `python -m venv` made, unchanged
    assert second.manifest.distributions != first.manifest.distributions
