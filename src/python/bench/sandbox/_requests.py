"""Checks and rewrites of an ExecRequest that do not depend on the backend.

``route_network`` turns the index-proxy policy into binds, environment and an argv prefix (from
``index_proxy.proxy_plan``); ``validate`` refuses requests no backend should run, before anything starts.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import replace
from pathlib import Path

from bench.errors import SandboxError
from bench.sandbox.protocol import ExecRequest, Mount, NetworkPolicy

# Sandbox paths an extra mount may not take or go under: the sandbox's own system and the work dir's place.
RESERVED_TARGETS = ("/usr", "/etc", "/proc", "/dev", "/work", "/tmp", "/bin", "/sbin", "/lib", "/lib64")
RESERVED_TREES = ("/usr", "/etc", "/proc", "/dev")
POSITIVE_LIMITS = ("wall_seconds", "memory_bytes", "pids", "file_size_bytes", "output_bytes", "nofile", "tmp_bytes")


def route_network(request: ExecRequest) -> ExecRequest:
    """The request as it must run: unchanged for no network; behind the forwarder for index-proxy."""
    if request.network is NetworkPolicy.NONE:
        return request
    if request.network is not NetworkPolicy.INDEX_PROXY:
        raise SandboxError(f"network policy {request.network!r} is not supported")
    if request.proxy_socket is None:
        raise SandboxError("network policy index-proxy needs ExecRequest.proxy_socket")
    try:
        from bench.sandbox.index_proxy import proxy_plan
    except ImportError as exc:
        raise SandboxError(f"network policy index-proxy is unavailable: {exc}") from None
    plan = proxy_plan(Path(request.proxy_socket))
    return replace(request, argv=(*plan.argv_prefix, *request.argv), env=(*request.env, *plan.env),
                   mounts=(*request.mounts, *plan.mounts))


def validate(request: ExecRequest, *, needs_image_root: bool = True) -> None:
    """Every backend's checks of a request; the docker backend runs the image by digest, not from a folder."""
    if not request.argv or not all(isinstance(a, str) and "\0" not in a for a in request.argv):
        raise SandboxError(f"ExecRequest.argv must be non-empty strings without NUL: {request.argv!r}")
    if "=" in request.argv[0]:  # env(1) would take it for an assignment
        raise SandboxError(f"the program name must not contain '=': {request.argv[0]!r}")
    if not Path(request.workdir).is_dir():
        raise SandboxError(f"work dir {request.workdir} is not a directory")
    for part in ("usr", "etc") if needs_image_root else ():
        if not (Path(request.image_root) / part).is_dir():
            raise SandboxError(f"image root {request.image_root} has no {part}/ (not an unpacked image?)")
    for key, value in request.env:
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise SandboxError(f"invalid environment entry {key!r}")
    if not request.cwd.startswith("/"):
        raise SandboxError(f"cwd must be absolute inside the sandbox: {request.cwd!r}")
    for mount in request.mounts:
        validate_mount(mount)
    targets = [m.sandbox_path for m in request.mounts]
    if len(set(targets)) != len(targets):
        raise SandboxError(f"two mounts share a sandbox path: {sorted(targets)}")
    for name in POSITIVE_LIMITS:
        if getattr(request.limits, name) <= 0:
            raise SandboxError(f"Limits.{name} must be positive")
    validate_channels(request)
    validate_frozen(request)


def validate_frozen(request: ExecRequest) -> None:
    for rel in request.frozen:
        if not rel or rel.startswith("/") or posixpath.normpath(rel) != rel or rel.split("/")[0] == "..":
            raise SandboxError(f"a frozen path is relative to the work dir and normalised: {rel!r}")


def validate_channels(request: ExecRequest) -> None:
    names = [c.name for c in request.channels]
    if len(set(names)) != len(names):
        raise SandboxError(f"two channels share a name: {sorted(names)}")
    for channel in request.channels:
        if not (channel.name.isascii() and channel.name.isalpha() and channel.name.islower()):
            raise SandboxError(f"a channel name is lower-case letters only: {channel.name!r}")
        if channel.receive < 0 or channel.receive and channel.send:
            raise SandboxError(f"channel {channel.name!r} must either send bytes or receive up to a positive cap")


def validate_mount(mount: Mount) -> None:
    target = mount.sandbox_path
    if not valid_sandbox_path(target):
        raise SandboxError(f"mount target must be an absolute normalised path other than /: {target!r}")
    inside_reserved_tree = any(target.startswith(r + "/") for r in RESERVED_TREES)
    if target in RESERVED_TARGETS or inside_reserved_tree and not (mount.mask and not mount.writable):
        raise SandboxError(f"mount target {target} would shadow the sandbox's own {target.split('/')[1]}")
    if not os.path.exists(mount.host_path):
        raise SandboxError(f"mount source {mount.host_path} does not exist")


def valid_sandbox_path(path: str) -> bool:
    return path.startswith("/") and posixpath.normpath(path) == path and path != "/" and "\0" not in path
