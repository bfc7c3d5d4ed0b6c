import os

from bench.sandbox._file_channels import FileChannels, read_bounded
from bench.sandbox.protocol import Channel


def test_a_channel_file_is_read_bounded_and_never_through_a_link_or_a_fifo(tmp_path):
    real = tmp_path / "real"
    real.write_bytes(b"0123456789")
    assert read_bounded(real, 4) == (b"0123", True)
    assert read_bounded(real, 10) == (b"0123456789", False)
    os.symlink(real, tmp_path / "link")
    assert read_bounded(tmp_path / "link", 100) == (b"", False)
    os.mkfifo(tmp_path / "fifo")  # no writer: a blocking open would hang here
    assert read_bounded(tmp_path / "fifo", 100) == (b"", False)
    assert read_bounded(tmp_path / "absent", 100) == (b"", False)


def test_file_channels_send_read_only_and_receive_in_a_writable_folder():
    channels = FileChannels((Channel("guard", send=b"{}"), Channel("report", receive=8)))
    try:
        env = dict(channels.env)
        assert set(env) == {"BENCH_CHANNEL_GUARD", "BENCH_CHANNEL_REPORT"}
        assert {m.writable for m in channels.mounts} == {True, False}
        writable = next(m for m in channels.mounts if m.writable)
        (writable.host_path / "report").write_bytes(b"<testsuites/>")
        (received,) = channels.collect()
        assert (received.name, received.data, received.truncated) == ("report", b"<testsui", True)
    finally:
        channels.close()
    assert not channels.scratch.exists()
