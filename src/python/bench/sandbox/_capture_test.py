import subprocess
import sys
import time

from bench.sandbox._capture import disk_growth_watch, pump


def _run(code: str, *, cap=1 << 20, wall=30.0, stdin=b"", watch=None):
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)
    started = time.monotonic()
    try:
        captured = pump(proc, stdin, cap, started + wall, watch)
    finally:
        proc.kill()
        proc.wait()
    return captured, time.monotonic() - started


def test_output_beyond_the_cap_is_dropped_and_flagged_per_stream():
    captured, _ = _run("import sys; sys.stdout.write('a' * 100000); sys.stderr.write('b' * 10)", cap=64)
    assert captured.stdout == b"a" * 64 and captured.stdout_truncated
    assert captured.stderr == b"b" * 10 and not captured.stderr_truncated
    assert captured.stop_reason == ""


def test_large_stdin_is_delivered_while_output_is_read():
    data = bytes(range(256)) * 8000
    captured, _ = _run("import sys; d = sys.stdin.buffer.read(); sys.stdout.buffer.write(d)", stdin=data,
                       cap=len(data))
    assert captured.stdout == data and not captured.stdout_truncated


def test_reader_that_never_reads_stdin_does_not_hang_the_pump():
    captured, elapsed = _run("print('done')", stdin=b"x" * (4 << 20))
    assert captured.stdout == b"done\n" and elapsed < 20


def test_deadline_stops_a_process_that_closed_its_output_but_keeps_running():
    captured, elapsed = _run("import os, time; os.close(1); os.close(2); time.sleep(60)", wall=1.0)
    assert captured.stop_reason == "timeout" and elapsed < 10


def test_watch_can_stop_the_run():
    calls = []

    def watch():
        calls.append(1)
        return "stop now" if len(calls) >= 2 else ""

    captured, elapsed = _run("import time; time.sleep(60)", watch=watch)
    assert captured.stop_reason == "stop now" and elapsed < 10


def _fill(path, mib):
    import os

    with open(path, "wb") as handle:
        for _ in range(mib):
            handle.write(b"\1" * (1 << 20))
        handle.flush()
        os.fsync(handle.fileno())


def test_disk_growth_watch_trips_only_past_the_limit(tmp_path, monkeypatch):
    from bench.sandbox import _capture

    # The tests' temp folder is a filesystem other test processes write to at the same time: hold its count
    # still, so only the work dir's own growth (summed on every call) decides.
    monkeypatch.setattr(_capture, "WORKDIR_SCAN_SECONDS", 0.0)
    watch = disk_growth_watch(tmp_path, 8 << 20, filesystem_used=lambda: 0)
    assert watch() == ""
    _fill(tmp_path / "small", 4)
    assert watch() == ""
    _fill(tmp_path / "big", 64)
    assert watch().startswith("disk limit: the work dir grew by")


def test_disk_growth_watch_trips_when_the_filesystem_grows_past_the_limit(tmp_path):
    used = [1 << 30]
    watch = disk_growth_watch(tmp_path, 8 << 20, filesystem_used=lambda: used[0])
    used[0] += 8 << 20
    assert watch() == ""
    used[0] += 1
    assert watch().startswith("disk limit: the work dir's filesystem grew by")


def test_disk_growth_watch_on_the_real_filesystem_sees_a_big_write(tmp_path, monkeypatch):
    from bench.sandbox import _capture

    monkeypatch.setattr(_capture, "WORKDIR_SCAN_SECONDS", 0.0)  # seen by either count, whatever others free
    watch = disk_growth_watch(tmp_path, 8 << 20)
    _fill(tmp_path / "big", 64)
    assert watch().startswith("disk limit: the work dir")


def test_disk_growth_watch_sees_the_work_dir_grow_while_another_job_frees_space(tmp_path, monkeypatch):
    import os

    from bench.sandbox import _capture

    monkeypatch.setattr(_capture, "WORKDIR_SCAN_SECONDS", 0.0)
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    def fill(path, mib):
        with open(path, "wb") as handle:
            handle.write(b"\1" * (mib << 20))
            handle.flush()
            os.fsync(handle.fileno())
    fill(elsewhere / "old", 96)
    watch = disk_growth_watch(work, 8 << 20)
    fill(work / "new", 32)
    (elsewhere / "old").unlink()  # the filesystem as a whole shrank meanwhile
    os.sync()
    assert watch().startswith("disk limit: the work dir grew by")


def test_cpu_time_watch_says_timeout_only_at_the_budget_and_not_without_a_count():
    from bench.sandbox._capture import cpu_time_watch, watch_all

    import time

    used = [0.5]
    watch = cpu_time_watch(lambda: used[0], 1.0, time.monotonic())
    assert watch() == ""
    used[0] = 1.0
    assert watch() == "timeout"
    assert cpu_time_watch(lambda: None, 1.0, time.monotonic() - 5)() == ""
    # past the limit on the wall clock: waiting (under a tenth of a CPU) stops, computing slowly does not
    assert cpu_time_watch(lambda: 0.1, 1.0, time.monotonic() - 2)() == "timeout"
    assert cpu_time_watch(lambda: 0.5, 1.0, time.monotonic() - 2)() == ""
    assert watch_all(lambda: "", lambda: "disk limit", watch)() == "disk limit"
    assert watch_all(lambda: "")() == ""


def test_disk_growth_watch_walks_the_work_dir_within_a_tenth_of_a_second(tmp_path):
    import time

    # Other jobs freeing space on the same tmpfs hide the filesystem count (held still here): the walk alone must
    # see a writer that puts its whole burst down in well under half a second.
    watch = disk_growth_watch(tmp_path, 8 << 20, filesystem_used=lambda: 0)
    _fill(tmp_path / "burst", 32)
    time.sleep(0.1)
    assert watch().startswith("disk limit: the work dir grew by")
