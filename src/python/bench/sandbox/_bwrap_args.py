"""Command lines of bwrap, setpriv and prlimit for one sandboxed run. Pure functions: argv in, argv out.

The chain, outermost first::

    sh (joins the run's cgroups) → prlimit → bwrap [stage, as root] → setpriv → bwrap [sandbox] → command

The *stage* bwrap runs as root in private mount and pid namespaces and binds every host path the sandbox needs
under one tmpfs (``STAGE_ROOT/<n>``). The unprivileged *sandbox* bwrap then binds from there, so it never has
to traverse host directories its uid may not enter (``/root/.cache/...``), and no host path appears in its
command line. When the harness is not root there is no stage and no setpriv: bwrap binds host paths itself.
"""

from __future__ import annotations

from dataclasses import dataclass

STAGE_ROOT = "/run/loopcontrolbench/stage"
SANDBOX_HOSTNAME = "sandbox"
SHM_BYTES = 64 << 20


@dataclass(frozen=True)
class Bind:
    source: str  # host path (or staged path)
    dest: str  # path inside the sandbox
    writable: bool = False


def stage(binds: tuple[Bind, ...]) -> tuple[tuple[str, ...], tuple[Bind, ...]]:
    """Arguments of the root stage bwrap (up to its ``--``) and the binds rewritten to staged sources."""
    # Its own pid namespace: the sandbox bwrap below runs as another uid, which the stage's capability-less
    # monitor may not signal, so --die-with-parent alone would not reach it when the harness is SIGKILLed.
    # The death of the stage's pid 1 (root, which it may signal) kills every process in the namespace.
    args = ["--dev-bind", "/", "/", "--tmpfs", STAGE_ROOT, "--unshare-pid", "--die-with-parent"]
    staged = []
    for index, bind in enumerate(binds):
        target = f"{STAGE_ROOT}/{index}"
        args += ["--bind" if bind.writable else "--ro-bind", bind.source, target]
        staged.append(Bind(target, bind.dest, bind.writable))
    return tuple(args) + ("--",), tuple(staged)


def sandbox(*, binds: tuple[Bind, ...], symlinks: tuple[tuple[str, str], ...], env: tuple[tuple[str, str], ...],
            cwd: str, tmp_bytes: int, inner_uid: int | None, status_fd: int) -> tuple[str, ...]:
    """Arguments of the sandbox bwrap and the in-sandbox ``env -i K=V...`` prefix; the command goes after.

    ``binds`` must list /usr and /etc of the image, the work dir, then extra mounts; they are ordered here so
    that a parent is mounted before anything under it (``--tmpfs /tmp`` first of all, or a bind under /tmp
    would be hidden by it).
    """
    args = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--hostname", SANDBOX_HOSTNAME, "--json-status-fd", str(status_fd)]
    if inner_uid is not None:
        args += ["--uid", str(inner_uid), "--gid", str(inner_uid)]
    args += ["--size", str(tmp_bytes), "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
             "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm"]
    for bind in sorted(binds, key=lambda b: (b.dest.count("/"), b.dest)):
        args += ["--bind" if bind.writable else "--ro-bind", bind.source, bind.dest]
        if bind.dest == "/usr":
            for link, target in symlinks:
                args += ["--symlink", target, link]
    args += ["--chdir", cwd, "--remount-ro", "/", "--clearenv", "--"]
    # bwrap always adds PWD after --chdir; ``env -i`` from the image leaves exactly the requested variables.
    return (*args, "/usr/bin/env", "-i", "--", *(f"{key}={value}" for key, value in env))


def usr_symlinks(has_lib64: bool, has_lib32: bool = False) -> tuple[tuple[str, str], ...]:
    """Debian's merged-/usr links, as (link, target) pairs."""
    links = [("/bin", "usr/bin"), ("/sbin", "usr/sbin"), ("/lib", "usr/lib")]
    if has_lib64:
        links.append(("/lib64", "usr/lib64"))
    if has_lib32:
        links.append(("/lib32", "usr/lib32"))
    return tuple(links)


def setpriv(uid: int, gid: int) -> tuple[str, ...]:
    """Become ``uid``:``gid`` with no supplementary groups; leaving uid 0 drops every capability."""
    return ("setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--")


def prlimit(limits: tuple[tuple[str, int], ...]) -> tuple[str, ...]:
    """``prlimit --fsize=N:N ... --`` (soft = hard, so the sandbox cannot raise them back)."""
    return ("prlimit", *(f"--{name}={value}:{value}" for name, value in limits), "--")


def fixed_addresses(machine: str) -> tuple[str, ...]:
    """``setarch MACHINE --addr-no-randomize --``: the run's processes get the same address layout every time
    (``ExecRequest.fixed_addresses``).

    Python hashes a type, a function or a plain object by its address, so with the addresses randomised a value
    built from such hashes differs from run to run (soupsieve caches ``hash()`` of a tuple of its fields'
    *types*), and so does the iteration order of a set of objects: a probe set recorded from them differed at
    every build. The flag is a personality bit: inherited through bwrap and every exec after it, and no wider a
    door (the sandbox's boundary is its namespaces, not the addresses inside it)."""
    return ("setarch", machine, "--addr-no-randomize", "--")


def join_cgroups(procs_files: tuple[str, ...]) -> tuple[str, ...]:
    """A tiny ``sh`` that writes its own pid into each cgroup.procs, then execs the rest of the chain.

    Joining before exec (not after spawn) leaves no window in which the run's first process could fork
    outside its groups.
    """
    if not procs_files:
        return ()
    script = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
    return ("/bin/sh", "-c", script, "sh", *procs_files, "--")
