import pytest

from bench.errors import ImageError, SandboxError
from bench.sandbox import host_tools
from bench.sandbox.host_tools import ensure_tool


def test_a_tool_on_path_is_returned_without_installing(monkeypatch):
    monkeypatch.setattr(host_tools, "_apt_install", lambda packages: pytest.fail("must not install"))
    assert ensure_tool("sh", "dash", SandboxError).endswith("/sh")


def test_missing_tool_without_root_names_the_install_command(monkeypatch):
    monkeypatch.setattr(host_tools.os, "geteuid", lambda: 1000)
    with pytest.raises(ImageError, match=r"no-such-tool-x is not installed; install it with "
                                         r"`apt-get install -y no-such-pkg-x` \(as root\)"):
        ensure_tool("no-such-tool-x", "no-such-pkg-x", ImageError)


def test_missing_tool_as_root_updates_package_lists_once_then_reports(monkeypatch, capsys):
    attempts, updates = [], []
    monkeypatch.setattr(host_tools.os, "geteuid", lambda: 0)
    monkeypatch.setattr(host_tools, "_apt_install", lambda packages: attempts.append(packages) or False)
    monkeypatch.setattr(host_tools, "_apt", lambda argv, error: updates.append(argv))
    with pytest.raises(SandboxError, match="`apt-get install -y no-such-pkg-x` failed"):
        ensure_tool("no-such-tool-x", "no-such-pkg-x", SandboxError)
    assert attempts == [("no-such-pkg-x",)] * 2 and updates == [("apt-get", "update")]
    assert capsys.readouterr().err == "bench: no-such-tool-x not found; running `apt-get install -y no-such-pkg-x`\n"


def _machine_without(monkeypatch, missing: set[str]) -> list[tuple[str, ...]]:
    """Root on a machine where the binaries in ``missing`` are absent until apt installs their packages."""
    installed: list[tuple[str, ...]] = []
    packages_of = {"mmdebstrap": "mmdebstrap", "bwrap": "bubblewrap", "no-such-tool-x": "no-such-pkg-x"}

    def which(binary):
        if binary in missing and packages_of[binary] not in {p for run in installed for p in run}:
            return None
        return f"/usr/bin/{binary}"

    monkeypatch.setattr(host_tools.os, "geteuid", lambda: 0)
    monkeypatch.setattr(host_tools.shutil, "which", which)
    monkeypatch.setattr(host_tools, "_apt_install", lambda packages: installed.append(packages) or True)
    return installed


def test_a_fresh_machine_gets_both_host_tools_in_one_apt_transaction(monkeypatch):
    installed = _machine_without(monkeypatch, {"mmdebstrap", "bwrap"})
    assert ensure_tool("mmdebstrap", "mmdebstrap", ImageError) == "/usr/bin/mmdebstrap"
    assert ensure_tool("bwrap", "bubblewrap", SandboxError) == "/usr/bin/bwrap"
    assert installed == [("mmdebstrap", "bubblewrap")]


def test_a_companion_already_present_is_not_installed_again(monkeypatch):
    installed = _machine_without(monkeypatch, {"bwrap"})
    assert ensure_tool("bwrap", "bubblewrap", SandboxError) == "/usr/bin/bwrap"
    assert installed == [("bubblewrap",)]


def test_a_tool_outside_the_host_set_brings_no_companions(monkeypatch):
    installed = _machine_without(monkeypatch, {"no-such-tool-x", "mmdebstrap", "bwrap"})
    assert ensure_tool("no-such-tool-x", "no-such-pkg-x", SandboxError) == "/usr/bin/no-such-tool-x"
    assert installed == [("no-such-pkg-x",)]


def test_an_install_that_leaves_the_tool_missing_names_the_command_it_ran(monkeypatch):
    monkeypatch.setattr(host_tools.os, "geteuid", lambda: 0)
    monkeypatch.setattr(host_tools.shutil, "which", lambda binary: None)
    monkeypatch.setattr(host_tools, "_apt_install", lambda packages: True)
    with pytest.raises(ImageError, match=r"`apt-get install -y mmdebstrap bubblewrap` succeeded but mmdebstrap "
                                         r"is still not on PATH"):
        ensure_tool("mmdebstrap", "mmdebstrap", ImageError)
