"""`./pants certify` and `./pants score` shared through a real remote cache: BuildGrid serving the Remote
Execution API's cache services on loopback, and a second clone that certifies and scores nothing itself.

Counts come from the goals' own lines, which report where Pants got each process's result.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from bench.testing.small_checkout import pants as _pants, small_checkout as _small_checkout, sources as _sources
from bench.testing.support import checkout_root

BUILDGRID = "buildgrid-0.9.1"  # lockfiles/tools/buildgrid.lock pins it and what it needs, by hash


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
