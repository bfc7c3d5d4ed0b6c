import pytest

from bench.errors import ImageError, SandboxError
from bench.sandbox import host_tools
from bench.sandbox.host_tools import ensure_tool


def test_a_tool_on_path_is_returned_without_installing(monkeypatch):
    monkeypatch.setattr(host_tools, "_apt_install", lambda package: pytest.fail("must not install"))
    assert ensure_tool("sh", "dash", SandboxError).endswith("/sh")


def test_missing_tool_without_root_names_the_install_command(monkeypatch):
    monkeypatch.setattr(host_tools.os, "geteuid", lambda: 1000)
    with pytest.raises(ImageError, match=r"no-such-tool-x is not installed; install it with "
                                         r"`apt-get install -y no-such-pkg-x` \(as root\)"):
        ensure_tool("no-such-tool-x", "no-such-pkg-x", ImageError)


def test_missing_tool_as_root_updates_package_lists_once_then_reports(monkeypatch, capsys):
    attempts, updates = [], []
    monkeypatch.setattr(host_tools.os, "geteuid", lambda: 0)
    monkeypatch.setattr(host_tools, "_apt_install", lambda package: attempts.append(package) or False)
    monkeypatch.setattr(host_tools, "_apt", lambda argv, error: updates.append(argv))
    with pytest.raises(SandboxError, match="`apt-get install -y no-such-pkg-x` failed"):
        ensure_tool("no-such-tool-x", "no-such-pkg-x", SandboxError)
    assert attempts == ["no-such-pkg-x", "no-such-pkg-x"] and updates == [("apt-get", "update")]
    assert capsys.readouterr().err == "bench: no-such-tool-x not found; running `apt-get install -y no-such-pkg-x`\n"
