"""Attack cases on resources: exhaust processes, memory, disk, output or time, or outlive the run.

Each passes only when the limit stopped the attack and nothing of it is left on the host. See ``conformance``
for the case protocol; ``attacks`` lists these together with the isolation attacks.
"""

from __future__ import annotations

import time
from dataclasses import replace

from bench.sandbox.conformance import SUITE_LIMITS, Case, Ctx, brief, case, host_pids_with, token


@case("attack")
def fork_bomb(ctx: Ctx):
    marker = token()
    code = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    started = time.monotonic()
    result = ctx.py(code, marker, limits=replace(SUITE_LIMITS, pids=64, wall_seconds=5))
    elapsed = time.monotonic() - started
    left = host_pids_with(marker)
    return not left and elapsed < 60 and not result.ok, f"returned after {elapsed:.1f}s, left {len(left)}; " \
        f"{brief(result)}"


@case("attack")
def memory_bomb(ctx: Ctx):
    code = "chunks = []\nwhile True:\n    chunks.append(bytearray(32 << 20))"
    result = ctx.py(code, limits=replace(SUITE_LIMITS, memory_bytes=256 << 20, wall_seconds=30))
    return (result.oom_killed or result.signal == 9) and not result.timed_out, brief(result)


@case("attack")
def fill_disk_one_file(ctx: Ctx):
    code = ("f = open('/work/fill', 'wb')\ntry:\n    while True:\n        f.write(b'\\0' * (1 << 20))\n"
            "        f.flush()\nexcept OSError as e:\n    print('stopped', e.errno)")
    result = ctx.py(code, limits=replace(SUITE_LIMITS, file_size_bytes=16 << 20, wall_seconds=30))
    size = (ctx.workdir / "fill").stat().st_size
    return size <= 16 << 20 and not result.timed_out, f"file {size} bytes; {brief(result)}"


@case("attack")
def fill_tmpfs(ctx: Ctx):
    code = ("import os\nn = 0\ntry:\n    while True:\n        with open(f'/tmp/f{n}', 'wb') as f:\n"
            "            f.write(b'\\1' * (4 << 20))\n        n += 1\nexcept OSError as e:\n    print('stopped', e.errno)\n"
            "print(sum(os.path.getsize(f'/tmp/{p}') for p in os.listdir('/tmp')))")
    result = ctx.py(code, limits=replace(SUITE_LIMITS, tmp_bytes=32 << 20, wall_seconds=30))
    lines = result.stdout.split()
    total = int(lines[-1]) if lines and lines[-1].isdigit() else -1
    return 0 <= total <= 33 << 20 and b"stopped" in result.stdout, f"/tmp held {total} bytes; {brief(result)}"


@case("attack")
def fill_disk_many_files(ctx: Ctx):
    # Many files, each within the size limit. The writer stops by itself after 100 files (400 MiB), so a backend
    # without a guard fails this case without filling the host's disk.
    code = ("import os\nfor n in range(100):\n    with open(f'/work/f{n}', 'wb') as f:\n"
            "        f.write(b'\\2' * (4 << 20))\n        f.flush()\n        os.fsync(f.fileno())\nprint('WROTE ALL')")
    limits = replace(SUITE_LIMITS, file_size_bytes=4 << 20, disk_bytes=64 << 20, wall_seconds=60)
    result = ctx.py(code, limits=limits)
    written = sum(p.stat().st_size for p in ctx.workdir.iterdir())
    # The guard polls, so some overshoot past 64 MiB is expected.
    ok = b"WROTE ALL" not in result.stdout and not result.timed_out and written < 400 << 20
    return ok, f"stopped after {written >> 20} MiB; {brief(result)}"


@case("attack")
def runaway_output(ctx: Ctx):
    result = ctx.run(("yes", "spam"), limits=replace(SUITE_LIMITS, output_bytes=4096, wall_seconds=3))
    ok = result.stdout_truncated and len(result.stdout) == 4096 and result.timed_out
    return ok, f"kept {len(result.stdout)} bytes, truncated={result.stdout_truncated}, timeout={result.timed_out}"


@case("attack")
def sleep_forever(ctx: Ctx):
    result = ctx.run(("sleep", "infinity"), limits=replace(SUITE_LIMITS, wall_seconds=2))
    return result.timed_out and result.wall_seconds < 30, f"wall {result.wall_seconds:.1f}s; {brief(result)}"


@case("attack")
def daemon_ignoring_sigterm(ctx: Ctx):
    marker = token()
    code = ("import os, signal, sys, time\nfor s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
            "    signal.signal(s, signal.SIG_IGN)\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
            "        time.sleep(600)\n    os._exit(0)\nif sys.argv[2] == 'linger':\n    time.sleep(600)\n")
    quick = ctx.py(code, marker, "exit")
    left_after_exit = host_pids_with(marker)
    slow = ctx.py(code, marker, "linger", limits=replace(SUITE_LIMITS, wall_seconds=2))
    left_after_timeout = host_pids_with(marker)
    ok = quick.ok and slow.timed_out and not left_after_exit and not left_after_timeout
    return ok, f"left after exit {left_after_exit}, after timeout {left_after_timeout}"


@case("attack")
def raise_own_limits(ctx: Ctx):
    code = ("import resource\nfor name in ('RLIMIT_FSIZE', 'RLIMIT_NOFILE', 'RLIMIT_NPROC'):\n"
            "    which = getattr(resource, name)\n    soft, hard = resource.getrlimit(which)\n    try:\n"
            "        resource.setrlimit(which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n"
            "        print('RAISED', name)\n    except (ValueError, OSError) as e:\n        print('denied', name)")
    result = ctx.py(code)
    return result.ok and result.stdout.count(b"denied") == 3, brief(result)


RESOURCE_ATTACKS: tuple[Case, ...] = (
    fork_bomb, memory_bomb, fill_disk_one_file, fill_tmpfs, fill_disk_many_files, runaway_output,
    sleep_forever, daemon_ignoring_sigterm, raise_own_limits,
)
