from bench.sandbox import _bwrap_args
from bench.sandbox._bwrap_args import Bind


def _sandbox(binds, env=()):
    return _bwrap_args.sandbox(binds=binds, symlinks=_bwrap_args.usr_symlinks(True), env=env, cwd="/work",
                               tmp_bytes=1 << 20, inner_uid=64123, status_fd=7)


def _position(args, *needle):
    for i in range(len(args) - len(needle) + 1):
        if tuple(args[i:i + len(needle)]) == needle:
            return i
    raise AssertionError(f"{needle} not in {args}")


def test_tmpfs_tmp_comes_before_binds_under_tmp_and_parents_before_children():
    binds = (Bind("/s/3", "/tmp/wheels"), Bind("/s/2", "/work", True), Bind("/s/0", "/usr"), Bind("/s/1", "/etc"),
             Bind("/s/4", "/work/venv"))
    args = _sandbox(binds)
    assert _position(args, "--tmpfs", "/tmp") < _position(args, "--ro-bind", "/s/3", "/tmp/wheels")
    assert _position(args, "--bind", "/s/2", "/work") < _position(args, "--ro-bind", "/s/4", "/work/venv")
    assert _position(args, "--ro-bind", "/s/0", "/usr") < _position(args, "--symlink", "usr/bin", "/bin")
    assert _position(args, "--remount-ro", "/") > _position(args, "--ro-bind", "/s/4", "/work/venv")


def test_sandbox_is_isolated_and_env_is_exactly_the_requested_one():
    args = _sandbox((Bind("/s/0", "/usr"),), env=(("PATH", "/usr/bin"), ("X", "a b=c")))
    for flag in ("--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
                 "--clearenv"):
        assert flag in args
    assert _position(args, "--cap-drop", "ALL") >= 0 and "--share-net" not in args
    assert _position(args, "--uid", "64123", "--gid", "64123") >= 0
    assert _position(args, "--json-status-fd", "7") >= 0
    assert args[-6:] == ("--", "/usr/bin/env", "-i", "--", "PATH=/usr/bin", "X=a b=c")


def test_stage_rewrites_sources_and_keeps_writability():
    args, staged = _bwrap_args.stage((Bind("/root/.cache/x/usr", "/usr"), Bind("/tmp/w", "/work", True)))
    root = _bwrap_args.STAGE_ROOT
    assert args == ("--dev-bind", "/", "/", "--tmpfs", root, "--unshare-pid", "--die-with-parent",
                    "--ro-bind", "/root/.cache/x/usr", f"{root}/0", "--bind", "/tmp/w", f"{root}/1", "--")
    assert staged == (Bind(f"{root}/0", "/usr"), Bind(f"{root}/1", "/work", True))


def test_rlimits_are_hard_and_soft():
    assert _bwrap_args.prlimit((("fsize", 10), ("nproc", 5))) == ("prlimit", "--fsize=10:10", "--nproc=5:5", "--")


def test_fixed_addresses_is_a_setarch_prefix():
    assert _bwrap_args.fixed_addresses("x86_64") == ("setarch", "x86_64", "--addr-no-randomize", "--")


def test_cgroup_join_is_a_shell_prefix_or_nothing():
    assert _bwrap_args.join_cgroups(()) == ()
    join = _bwrap_args.join_cgroups(("/cg/a/cgroup.procs", "/cg/b/cgroup.procs"))
    assert join[:2] == ("/bin/sh", "-c") and join[-3:] == ("/cg/a/cgroup.procs", "/cg/b/cgroup.procs", "--")


def test_join_prefix_writes_its_pid_then_execs(tmp_path):
    import subprocess

    files = (tmp_path / "a", tmp_path / "b")
    done = subprocess.run((*_bwrap_args.join_cgroups(tuple(map(str, files))), "sh", "-c", "echo $$"),
                          capture_output=True, text=True)
    pid = done.stdout.strip()
    assert [f.read_text().strip() for f in files] == [pid, pid]  # same pid: exec, not a child


def test_valid_sandbox_paths():
    from bench.sandbox._requests import valid_sandbox_path

    assert valid_sandbox_path("/opt/x")
    for bad in ("/", "relative", "/a/../b", "/a/", "/a\0b"):
        assert not valid_sandbox_path(bad)
