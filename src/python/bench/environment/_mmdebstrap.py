"""Everything that knows mmdebstrap's and dpkg's command lines and output formats."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

# dpkg-query's format: the status abbreviation lets us keep installed packages only ("ii").
_QUERY_FORMAT = r"${db:Status-Abbrev}|${Package}=${Version}\n"


def build_argv(*, suite: str, variant: str, mirror: str, architecture: str, include: tuple[str, ...],
               tar_path: Path, manifest_path: Path) -> tuple[str, ...]:
    """mmdebstrap writing an uncompressed tar (its sha256 is the image digest) and the package list."""
    # The customize hook runs on the finished tree before it is packed; "$1" is that tree.
    hook = (f"dpkg-query --admindir=\"$1/var/lib/dpkg\" -W -f {shlex.quote(_QUERY_FORMAT)} "
            f"> {shlex.quote(str(manifest_path))}")
    argv = ["mmdebstrap", f"--variant={variant}", f"--architectures={architecture}", "--format=tar"]
    if include:
        argv.append(f"--include={','.join(include)}")
    argv += [f"--customize-hook={hook}", suite, str(tar_path), mirror]
    return tuple(argv)


def build_env(source_date_epoch: int) -> dict[str, str]:
    """The host environment with a fixed clock and a fixed Python behaviour: what makes two builds byte-identical.

    Package scripts run the image's Python with the environment mmdebstrap got. Debian's ``py3compile`` imports
    its own modules before it byte-compiles: unless bytecode writing is off, that import leaves timestamp pycs
    whose bytes differ from the ones py3compile writes, so the digest depended on whether the caller's shell
    set ``PYTHONDONTWRITEBYTECODE`` (the pinned digests were built with it set). Every other ``PYTHON*``
    variable of the host is dropped for the same reason.
    """
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env.update(SOURCE_DATE_EPOCH=str(source_date_epoch), LC_ALL="C.UTF-8", DEBIAN_FRONTEND="noninteractive",
               PYTHONDONTWRITEBYTECODE="1")
    return env


def run(argv: tuple[str, ...], env: dict[str, str], log_path: Path) -> int:
    """Run mmdebstrap with its chatter in ``log_path`` (progress lines are not data)."""
    with open(log_path, "wb") as log:
        return subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log).returncode


def parse_query_output(text: str) -> tuple[str, ...]:
    """``name=version`` for every installed package, sorted (dpkg lists them in database order)."""
    lines = []
    for raw in text.splitlines():
        status, _, entry = raw.partition("|")
        if status.strip() == "ii" and entry:
            lines.append(entry)
    return tuple(sorted(lines))


def parse_status_file(text: str) -> tuple[str, ...]:
    """The same manifest read from a ``var/lib/dpkg/status`` file (for a cached tar without its manifest)."""
    entries = []
    for stanza in text.split("\n\n"):
        fields = {}
        for line in stanza.splitlines():
            if line and not line[0].isspace() and ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if fields.get("Status", "").endswith(" installed") and "Package" in fields:
            entries.append(f"{fields['Package']}={fields.get('Version', '')}")
    return tuple(sorted(entries))
