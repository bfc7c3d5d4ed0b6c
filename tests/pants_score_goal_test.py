"""`./pants score` and `./pants certify` as cached build goals, run by a real Pants in a small copy of the
checkout (three synthetic tasks, the harness, the plugin), and shared through a real remote cache: BuildGrid
serving the Remote Execution API's cache services on loopback.

Counts come from the goals' own lines, which report where Pants got each process's result (its run
metadata: ran here, hit the local cache, hit the remote cache).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from bench.testing.support import checkout_root, run_bench

TASKS = ("caesar_shift", "anagram_groups", "roman_numerals")
OWN_LOCK = "roman_numerals"  # in the copy, the one task with a lock of its own
COPIED = ("pants", "pants.toml", "BUILD", "build-support", "pants-plugins", "src/python", "3rdparty", "lockfiles/BUILD",
          "lockfiles/llama-cpp-python.cmake-args", "lockfiles/python-default.lock", "lockfiles/tools", "images",
          "tasks/_integrity")
BUILDGRID = "buildgrid-0.9.1"  # lockfiles/tools/buildgrid.lock pins it and what it needs, by hash


def _copy(source: Path, root: Path, relative: str) -> None:
    src, dst = source / relative, root / relative
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copy2(src, dst)


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout


def _small_checkout(root: Path) -> Path:
    """The harness, the plugin and three synthetic tasks; roman_numerals gets a lock file of its own."""
    source = checkout_root()
    for relative in COPIED:
        _copy(source, root, relative)
    targets = []
    for name in TASKS:
        for relative in (f"tasks/synthetic/{name}.json", f"tasks/synthetic/{name}",
                         f"tasks/synthetic/_scripted/study/{name}.json"):
            _copy(source, root, relative)
        lock = "lockfiles/tasks/synthetic.lock"
        if name == OWN_LOCK:
            lock = f"lockfiles/tasks/synthetic-{name}.lock"
            spec = root / f"tasks/synthetic/{name}.json"
            spec.write_text(spec.read_text().replace('"lockfiles/tasks/synthetic.lock"', f'"{lock}"'))
        _copy(source, root, "lockfiles/tasks/synthetic.lock")
        shutil.copy2(source / "lockfiles/tasks/synthetic.lock", root / lock)
        targets.append(f'bench_task(name="synthetic.{name}", spec="{name}.json", lockfile="{lock}", '
                       f'image="trixie-py313-slim", data=["{name}/**/*"])\n')
    (root / "tasks/synthetic/BUILD").write_text("\n".join(targets))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "a small checkout")
    return root


def _pants(root: Path, *args: str, store: Path, timeout: float = 1800) -> subprocess.CompletedProcess:
    """A Pants of its own (no daemon, its own local cache), so every line reports this run's processes."""
    done = subprocess.run(["./pants", "--no-pantsd", f"--local-store-dir={store}", *args], cwd=root,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _sources(done: subprocess.CompletedProcess, verbs: str) -> list[tuple[str, str]]:
    """(how, what) of each process line the goals print: how is the goal's verb, cached or remote."""
    return re.findall(rf"^({verbs}|cached|remote)\s+(\S+(?: \S+)?)", done.stdout + done.stderr, re.M)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    return _small_checkout(tmp_path_factory.mktemp("checkout"))


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """The small checkout's local cache, shared by the tests that use that checkout: the second finds the pex
    the first built (built again, it took a third of a minute) and asserts nothing about what ran."""
    return tmp_path_factory.mktemp("store") / "store"


def test_pants_score_equals_bench_score_is_cached_and_reruns_exactly_the_changed_locks_task(checkout, store,
                                                                                           tmp_path):
    selector = ",".join(f"synthetic.{name}" for name in TASKS)
    reference = run_bench("score", "--model", "scripted", "--tasks", selector, "--out", str(tmp_path / "ref"),
                          "--no-preflight", cwd=checkout, timeout=1800)
    assert reference.returncode == 0, reference.stderr[-2000:]

    first = _pants(checkout, "score", "--model=scripted", "tasks/synthetic::", store=store)
    scored = _sources(first, "scored")
    assert sorted(how for how, _ in scored) == ["scored"] * 6, first.stderr[-2000:]
    out = checkout / "results/runs/scripted-study/pants"
    assert (out / "results.jsonl").read_bytes() == (tmp_path / "ref/results.jsonl").read_bytes()
    assert (out / "report/report.md").is_file() and (out / "summary.json").is_file()

    again = _pants(checkout, "score", "--model=scripted", "tasks/synthetic::", store=store)
    assert sorted(how for how, _ in _sources(again, "scored")) == ["cached"] * 6
    assert "units: 0 ran, 6 cached, 0 remote" in again.stderr

    lock = checkout / f"lockfiles/tasks/synthetic-{OWN_LOCK}.lock"
    lock.write_text(lock.read_text() + "# this task's own copy of the synthetic lock\n")
    changed = _pants(checkout, "score", "--model=scripted", "tasks/synthetic::", store=store)
    ran = sorted(what for how, what in _sources(changed, "scored") if how == "scored")
    assert ran == [f"synthetic.{OWN_LOCK} loop:count-only:0", f"synthetic.{OWN_LOCK} loop:full:0"]
    assert "units: 2 ran, 4 cached, 0 remote" in changed.stderr


def test_pants_score_refuses_a_model_that_is_not_deterministic(checkout, store):
    done = subprocess.run(["./pants", "--no-pantsd", f"--local-store-dir={store}", "score",
                           "--model=openai/gpt-4o-mini", "tasks/synthetic::"], cwd=checkout, capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "does not declare itself deterministic" in done.stderr
    assert "bench score --model openai/gpt-4o-mini" in done.stderr


# --- a remote cache shared by two clones ---------------------------------------------------------------------

def _python313() -> str | None:
    """A Python 3.13 interpreter: pyenv's (found from PYENV_ROOT, ~/.pyenv, the account's own home folder or a
    pyenv shims folder on PATH, so an empty HOME and a bare PATH still find the machine's pyenv), else one on PATH
    that is not a shim."""
    import pwd

    roots = [os.environ.get("PYENV_ROOT", ""), str(Path.home() / ".pyenv"),
             str(Path(pwd.getpwuid(os.getuid()).pw_dir) / ".pyenv")]
    roots += [str(Path(entry).parent) for entry in os.environ.get("PATH", "").split(os.pathsep)
              if Path(entry).name == "shims"]
    for root in filter(None, roots):
        found = sorted((Path(root) / "versions").glob("3.13*/bin/python3.13"))
        if found:
            return str(found[-1])
    plain = shutil.which("python3.13")
    return plain if plain and "shims" not in Path(plain).parts else None


def _buildgrid() -> Path:
    """BuildGrid's server from PyPI in a venv of its own (BuildGrid needs Python 3.13), kept in the harness's
    cache between runs."""
    from bench.variables import cache_dir

    lock = checkout_root() / "lockfiles/tools/buildgrid.lock"
    venv = cache_dir() / "tools" / f"{BUILDGRID}-{hashlib.sha256(lock.read_bytes()).hexdigest()[:12]}"
    bgd = venv / "bin" / "bgd"
    if not bgd.exists():
        python = _python313()
        # This machine kind carries pyenv's 3.13; a test that skipped where it is missing would check nothing.
        assert python is not None, ("BuildGrid needs Python 3.13: neither pyenv (PYENV_ROOT, ~/.pyenv, shims on "
                                    "PATH) nor PATH has one")
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        env = {**os.environ, "PIP_CONFIG_FILE": "/dev/null", "PIP_FIND_LINKS": ""}
        subprocess.run([str(venv / "bin/pip"), "install", "-q", "--require-hashes", "--no-deps", "-r", str(lock)],
                       check=True, timeout=1200, env=env)
    return bgd


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture()
def remote_cache(tmp_path):
    """BuildGrid on loopback with the action cache, CAS and ByteStream services: a remote cache, no execution."""
    port = _free_port()
    config = tmp_path / "bgd.yml"
    config.write_text(f"""server:
  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: true
storages:
  - !disk-storage &cas
    path: {tmp_path / 'cas'}
caches:
  - !lru-action-cache &ac
    storage: *cas
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
instances:
  - name: ""
    services:
      - !action-cache
        cache: *ac
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
""")
    log = open(tmp_path / "bgd.log", "wb")
    server = subprocess.Popen([str(_buildgrid()), "server", "start", str(config)], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "bgd.log").read_text()
            time.sleep(0.5)
        yield f"grpc://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def _certificates_as_the_harness_writes_them(checkout: Path, scratch: Path) -> None:
    """The goal writes each certificate with the harness's own bytes, not gzip as Pants' interpreter makes it
    (another header): a committed certificate whose content did not change must not show as changed."""
    from bench.gate.certify import read_certificate, write_certificate

    written = sorted((checkout / "results/certificates").glob("*.json.gz"))
    assert len(written) == 3
    for path in written:
        again = write_certificate(scratch / "again" / path.name, read_certificate(path))
        assert path.read_bytes() == again.read_bytes(), path.name


def test_a_second_clone_certifies_and_scores_nothing_itself_through_the_remote_cache(remote_cache, tmp_path):
    checkout = _small_checkout(tmp_path / "checkout")
    remote = ("--remote-cache-read", "--remote-cache-write", f"--remote-store-address={remote_cache}")
    goals = ("certify", "score", "--model=repairer", "--turns=2", "tasks/synthetic::")
    first_at = time.monotonic()
    first = _pants(checkout, *remote, *goals, store=tmp_path / "store-1")
    first_seconds = time.monotonic() - first_at
    certified = _sources(first, "certified|scored")
    assert sorted(how for how, _ in certified) == ["certified"] * 3 + ["scored"] * 3, first.stdout[-2000:]
    _certificates_as_the_harness_writes_them(checkout, tmp_path)

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(checkout), str(clone)], check=True)
    second_at = time.monotonic()
    second = _pants(clone, *remote, *goals, store=tmp_path / "store-2")
    second_seconds = time.monotonic() - second_at
    assert sorted(how for how, _ in _sources(second, "certified|scored")) == ["remote"] * 6, second.stdout[-2000:]
    assert "units: 0 ran, 0 cached, 3 remote" in second.stderr
    made = sorted(p.relative_to(checkout).as_posix() for p in (checkout / "results").rglob("*")
                  if p.is_file() and ("certificates" in p.parts or p.name == "results.jsonl"))
    assert any(p.endswith("results.jsonl") for p in made) and len(made) >= 4
    for relative in made:
        assert (clone / relative).read_bytes() == (checkout / relative).read_bytes(), relative
    print(f"first checkout {first_seconds:.1f} s, second clone {second_seconds:.1f} s (recorded, not asserted)")
