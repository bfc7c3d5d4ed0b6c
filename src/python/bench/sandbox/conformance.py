"""The one suite every sandbox backend must pass: conformance cases here, attack cases in ``attacks``.

Each case is a plain function ``(sandbox, image_root, image_digest, scratch) -> CaseResult``; it makes what it
needs under ``scratch`` and checks the backend's observable behaviour only, so the same case judges bwrap and
docker. ``run_suites(backend, suite_image())`` runs everything on the slim image. ``KNOWN_FAILURES`` lists
cases a backend is allowed to fail (kept empty: a failure is a bug to fix, not to list).
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from bench.sandbox.protocol import Channel, ExecRequest, ExecResult, Limits, Mount

SUITE_IMAGE = "trixie-py313-slim"
KNOWN_FAILURES: dict[str, set[str]] = {"bwrap": set(), "docker": set()}
SUITE_LIMITS = Limits(wall_seconds=60, memory_bytes=512 << 20, pids=128, cpus=1.0, file_size_bytes=64 << 20,
                      output_bytes=1 << 20, nofile=1024, tmp_bytes=64 << 20, disk_bytes=2 << 30)
SANDBOX_PATH = (("PATH", "/usr/bin:/bin"),)


@dataclass(frozen=True)
class CaseResult:
    name: str
    passed: bool
    detail: str
    kind: str = "conformance"  # or "attack"
    known_failure: bool = False


Case = Callable[[object, Path, str, Path], CaseResult]


@dataclass(frozen=True)
class Ctx:
    """What a case body works with: the backend, the image and its own scratch folder and work dir."""

    sandbox: object
    image_root: Path
    image_digest: str
    scratch: Path

    @property
    def workdir(self) -> Path:
        return self.scratch / "work"

    def run(self, argv, *, env=SANDBOX_PATH, limits: Limits = SUITE_LIMITS, **fields) -> ExecResult:
        request = ExecRequest(argv=tuple(argv), workdir=self.workdir, image_root=self.image_root, env=tuple(env),
                              limits=limits, image_digest=self.image_digest, **fields)
        return self.sandbox.run(request)

    def py(self, code: str, *args: str, **kw) -> ExecResult:
        return self.run(("python3", "-c", code, *args), **kw)


def case(kind: str):
    """Turn ``body(ctx) -> (passed, detail)`` into a suite case; an exception is a failure, not a crash."""
    def decorate(body):
        name = body.__name__

        @functools.wraps(body)
        def run_case(sandbox, image_root: Path, image_digest: str, scratch: Path) -> CaseResult:
            ctx = Ctx(sandbox, Path(image_root), image_digest, Path(scratch) / name)
            ctx.workdir.mkdir(parents=True, exist_ok=True)
            try:
                passed, detail = body(ctx)
            except Exception as exc:  # noqa: BLE001 - a suite reports, it does not stop at the first error
                passed, detail = False, f"raised {type(exc).__name__}: {exc}"
            return CaseResult(name, bool(passed), detail, kind)

        run_case.case_name = name
        run_case.case_kind = kind
        return run_case
    return decorate


def brief(result: ExecResult) -> str:
    tail = (result.stdout[-200:] + b" | " + result.stderr[-300:]).decode("utf-8", "replace").strip()
    return (f"exit={result.exit_code} signal={result.signal} timeout={result.timed_out} "
            f"oom={result.oom_killed} out/err: {tail}")


def host_pids_with(token: str) -> tuple[int, ...]:
    """Host processes whose command line contains ``token`` (this process excluded)."""
    found = []
    needle = token.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if needle in handle.read():
                    found.append(int(entry))
        except OSError:
            pass
    return tuple(found)


def token() -> str:
    return f"lcb-{secrets.token_hex(8)}"


# --- conformance cases --------------------------------------------------------------------------------------


@case("conformance")
def exit_codes(ctx: Ctx):
    codes = [ctx.run(("sh", "-c", f"exit {n}")).exit_code for n in (0, 3, 77)]
    failing = ctx.run(("false",))
    ok = codes == [0, 3, 77] and failing.exit_code == 1 and not failing.ok
    return ok, f"sh exit 0/3/77 -> {codes}; false -> {failing.exit_code}"


@case("conformance")
def argv_verbatim(ctx: Ctx):
    args = ["a b", "it's", '"quoted"', "$HOME", "*", "", "back\\slash", "tab\tnew\nline", "ünïcode", "-c"]
    result = ctx.py("import sys, json; print(json.dumps(sys.argv[1:]))", *args)
    seen = json.loads(result.stdout) if result.ok else None
    return seen == args, f"got {seen!r}" if seen != args else "all arguments arrived unchanged"


@case("conformance")
def env_exact(ctx: Ctx):
    marker = token()
    os.environ["LCB_HOST_ONLY"] = marker
    try:
        wanted = (("PATH", "/usr/bin:/bin"), ("LCB_EXPLICIT", "x y=z"), ("EMPTY", ""))
        result = ctx.run(("/usr/bin/env",), env=wanted)
    finally:
        del os.environ["LCB_HOST_ONLY"]
    lines = sorted(result.stdout.decode().splitlines())
    expected = sorted(f"{k}={v}" for k, v in wanted)
    return lines == expected and marker not in result.stdout.decode(), f"env inside: {lines}"


@case("conformance")
def workdir_round_trip(ctx: Ctx):
    (ctx.workdir / "input.txt").write_text("from host\n")
    result = ctx.run(("sh", "-c", "mkdir -p out/deep && cat input.txt > out/deep/copy.txt && echo made >> "
                                  "out/deep/copy.txt"))
    copy = ctx.workdir / "out/deep/copy.txt"
    content = copy.read_text() if copy.exists() else None
    return result.ok and content == "from host\nmade\n", f"host sees {content!r}; {brief(result)}"


@case("conformance")
def cwd_honoured(ctx: Ctx):
    (ctx.workdir / "sub dir").mkdir()
    result = ctx.run(("pwd",), cwd="/work/sub dir")
    return result.stdout == b"/work/sub dir\n", brief(result)


@case("conformance")
def stdin_delivered(ctx: Ctx):
    data = os.urandom(300_000) + b"\x00end"
    result = ctx.py("import sys, hashlib; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())",
                    stdin=data)
    import hashlib

    return result.stdout.decode().strip() == hashlib.sha256(data).hexdigest(), brief(result)


@case("conformance")
def stderr_separate(ctx: Ctx):
    result = ctx.py("import sys; print('to-out'); print('to-err', file=sys.stderr); sys.exit(5)")
    ok = result.stdout == b"to-out\n" and result.stderr == b"to-err\n" and result.exit_code == 5
    return ok, brief(result)


@case("conformance")
def wall_timeout(ctx: Ctx):
    result = ctx.run(("sleep", "120"), limits=replace(SUITE_LIMITS, wall_seconds=2))
    ok = result.timed_out and not result.ok and result.exit_code is None and result.wall_seconds < 30
    return ok, f"wall {result.wall_seconds:.1f}s; {brief(result)}"


@case("conformance")
def memory_limit_oom(ctx: Ctx):
    code = "b = bytearray(1 << 30)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint('survived')"
    result = ctx.py(code, limits=replace(SUITE_LIMITS, memory_bytes=256 << 20))
    return result.oom_killed and b"survived" not in result.stdout and not result.ok, brief(result)


@case("conformance")
def pids_limit(ctx: Ctx):
    code = ("import os, time\nn = 0\ntry:\n    while n < 2000:\n        if os.fork() == 0:\n"
            "            time.sleep(60); os._exit(0)\n        n += 1\nexcept OSError as e:\n"
            "    print(n, e.errno)\n")
    result = ctx.py(code, limits=replace(SUITE_LIMITS, pids=32, wall_seconds=30))
    parts = result.stdout.split()
    forked = int(parts[0]) if parts else -1
    return 0 < forked <= 32 and not result.timed_out, f"forked {forked} before EAGAIN; {brief(result)}"


@case("conformance")
def file_size_limit(ctx: Ctx):
    code = ("try:\n    open('/work/big', 'wb').write(b'x' * (8 << 20))\n    print('wrote all')\n"
            "except OSError as e:\n    print('errno', e.errno)")
    result = ctx.py(code, limits=replace(SUITE_LIMITS, file_size_bytes=1 << 20))
    size = (ctx.workdir / "big").stat().st_size if (ctx.workdir / "big").exists() else 0
    return size <= 1 << 20 and b"wrote all" not in result.stdout, f"file {size} bytes; {brief(result)}"


@case("conformance")
def output_truncated(ctx: Ctx):
    result = ctx.py("import sys; sys.stdout.write('0123456789' * 100000); print('e', file=sys.stderr)",
                    limits=replace(SUITE_LIMITS, output_bytes=1000))
    ok = (result.stdout_truncated and result.stdout == (b"0123456789" * 100)
          and not result.stderr_truncated and result.stderr == b"e\n" and result.exit_code == 0)
    return ok, f"stdout {len(result.stdout)} bytes, truncated={result.stdout_truncated}"


@case("conformance")
def signal_reported(ctx: Ctx):
    term = ctx.run(("sh", "-c", "kill -TERM $$"))
    segv = ctx.py("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    ok = (term.signal, term.exit_code, segv.signal, segv.exit_code) == (15, None, 11, None)
    return ok, f"TERM -> signal {term.signal} exit {term.exit_code}; SEGV -> {segv.signal} exit {segv.exit_code}"


@case("conformance")
def teardown_complete(ctx: Ctx):
    marker = token()
    code = ("import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(300)\n    os._exit(0)\n"
            "print('parent done')")
    result = ctx.py(code, marker)
    left = host_pids_with(marker)
    leftovers = tuple(getattr(ctx.sandbox, "leftovers", lambda: ())())
    ok = result.ok and not left and not leftovers
    return ok, f"processes left {left}; backend leftovers {leftovers}; {brief(result)}"


@case("conformance")
def cpu_time_and_quota(ctx: Ctx):
    code = "import time\nend = time.monotonic() + 2\nwhile time.monotonic() < end: pass"
    result = ctx.py(code, limits=replace(SUITE_LIMITS, cpus=0.25))
    # Quota 0.25 over ~2 s of wall: about 0.5 s of CPU. Unthrottled it would be ~2 s. Bounds are generous.
    ok = result.ok and 0.2 <= result.cpu_seconds <= 1.3
    return ok, f"cpu {result.cpu_seconds:.2f}s over wall {result.wall_seconds:.2f}s at 0.25 cpus"


@case("conformance")
def nofile_limit(ctx: Ctx):
    result = ctx.py("import resource; print(*resource.getrlimit(resource.RLIMIT_NOFILE))",
                    limits=replace(SUITE_LIMITS, nofile=256))
    return result.stdout.split() == [b"256", b"256"], brief(result)


@case("conformance")
def extra_mounts(ctx: Ctx):
    ro, rw = ctx.scratch / "ro", ctx.scratch / "rw"
    ro.mkdir()
    rw.mkdir()
    (ro / "data.txt").write_text("ro data")
    os.chmod(ro, 0o755)
    os.chmod(ro / "data.txt", 0o644)
    script = ("cat /opt/ro/data.txt; (echo x > /opt/ro/new) 2>/dev/null && echo RO-WRITABLE; "
              "echo written > /opt/rw/out.txt")
    result = ctx.run(("sh", "-c", script), mounts=(Mount(ro, "/opt/ro"), Mount(rw, "/opt/rw", writable=True)))
    out = (rw / "out.txt").read_text() if (rw / "out.txt").exists() else None
    ok = result.stdout == b"ro data" and out == "written\n" and not (ro / "new").exists()
    return ok, f"rw file {out!r}; {brief(result)}"


@case("conformance")
def tmp_private(ctx: Ctx):
    marker = token()
    first = ctx.run(("sh", "-c", f"echo {marker} > /tmp/{marker} && cat /tmp/{marker}"))
    second = ctx.run(("sh", "-c", f"cat /tmp/{marker} 2>/dev/null || echo absent"))
    ok = first.stdout.strip() == marker.encode() and second.stdout == b"absent\n" and \
        not Path(f"/tmp/{marker}").exists()
    return ok, f"first {first.stdout!r}, second {second.stdout!r}"


@case("conformance")
def channels_round_trip(ctx: Ctx):
    """A send channel's bytes are readable at the path in its variable; what is written to a receive
    channel's path reaches the host, as the sandbox's unprivileged user."""
    secret = token()
    code = ("import os; data = open(os.environ['BENCH_CHANNEL_CONFIG'], 'rb').read(); "
            "open(os.environ['BENCH_CHANNEL_REPORT'], 'wb').write(data[::-1] + b'|' + str(os.getuid()).encode())")
    result = ctx.py(code, channels=(Channel("config", send=secret.encode()), Channel("report", receive=1 << 10)))
    got = result.received_from("report")
    ok = result.exit_code == 0 and got is not None and got.data.split(b"|")[0] == secret[::-1].encode() and \
        got.data.split(b"|")[1] != b"0" and not got.truncated
    return ok, f"received {got}; {brief(result)}"


@case("conformance")
def channel_capped_without_blocking(ctx: Ctx):
    """A writer past a receive channel's cap is drained, not blocked: the run ends on its own, the host keeps
    exactly the cap and says more was written."""
    code = "import os; f = open(os.environ['BENCH_CHANNEL_REPORT'], 'wb'); f.write(b'x' * (8 << 20)); f.close()"
    result = ctx.py(code, channels=(Channel("report", receive=1 << 10),))
    got = result.received_from("report")
    ok = result.exit_code == 0 and not result.timed_out and got is not None and got.data == b"x" * 1024 and \
        got.truncated
    return ok, f"kept {len(got.data) if got else None} truncated {got.truncated if got else None}; {brief(result)}"


@case("conformance")
def frozen_paths(ctx: Ctx):
    """A frozen file cannot be written, truncated, renamed, replaced, linked over or removed, and a frozen
    folder gains no entry, from inside; after the run both are as they were and the host can change them."""
    (ctx.workdir / "kept.py").write_text("VALUE = 1\n")
    (ctx.workdir / "cache").mkdir()
    (ctx.workdir / "other.py").write_text("")
    code = ("import os\nfor attempt in (lambda: open('kept.py', 'w'), lambda: os.truncate('kept.py', 0),"
            " lambda: os.rename('kept.py', 'moved.py'), lambda: os.replace('other.py', 'kept.py'),"
            " lambda: os.unlink('kept.py'), lambda: open('cache/planted.pyc', 'wb'),"
            " lambda: os.utime('kept.py', (1, 1))):\n"
            "    try:\n        attempt()\n        print('CHANGED')\n    except OSError:\n        print('refused')\n")
    result = ctx.py(code, frozen=("kept.py", "cache"))
    (ctx.workdir / "kept.py").write_text("VALUE = 2\n")  # thawed: the host writes it again
    (ctx.workdir / "cache" / "after.txt").write_text("")
    ok = result.stdout == b"refused\n" * 7 and (ctx.workdir / "other.py").exists()
    return ok, brief(result)


CONFORMANCE_CASES: tuple[Case, ...] = (
    exit_codes, argv_verbatim, env_exact, workdir_round_trip, cwd_honoured, stdin_delivered, stderr_separate,
    wall_timeout, memory_limit_oom, pids_limit, file_size_limit, output_truncated, signal_reported,
    teardown_complete, cpu_time_and_quota, nofile_limit, extra_mounts, tmp_private, channels_round_trip,
    channel_capped_without_blocking, frozen_paths,
)


# --- running ------------------------------------------------------------------------------------------------


def all_cases() -> tuple[Case, ...]:
    from bench.sandbox.attacks import ATTACK_CASES

    return CONFORMANCE_CASES + ATTACK_CASES


def run_case(backend_name: str, one: Case, sandbox, image_root: Path, digest: str, scratch: Path) -> CaseResult:
    result = one(sandbox, image_root, digest, scratch)
    if not result.passed and result.name in KNOWN_FAILURES.get(backend_name, set()):
        result = replace(result, known_failure=True)
    return result


def run_suites(backend_name: str, image: tuple[Path, str], *, cases: tuple[Case, ...] | None = None,
               progress: Callable[[CaseResult], None] | None = None) -> tuple[CaseResult, ...]:
    """Run ``cases`` (default: every conformance and attack case) against the backend, in order, on ``image``
    (rootfs, digest: ``bench.environment.image.suite_image()`` builds the one the suites are written for)."""
    from bench.sandbox.registry import get_sandbox

    sandbox = get_sandbox(backend_name)
    image_root, digest = image
    results = []
    with tempfile.TemporaryDirectory(prefix="lcb-conformance-") as scratch:
        os.chmod(scratch, 0o755)
        for one in all_cases() if cases is None else cases:
            result = run_case(backend_name, one, sandbox, image_root, digest, Path(scratch))
            results.append(result)
            if progress is not None:
                progress(result)
    return tuple(results)
