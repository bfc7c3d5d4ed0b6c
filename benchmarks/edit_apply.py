"""Time to parse and apply a SEARCH/REPLACE reply that grows a file, against the reply's size, in one run.

Each reply consists of blocks that find the file's last line and put new lines before it, so every block's
exactly-once check must scan the whole, grown file. Three series, each at 1, 2 and 4 MB:

* ``small blocks, no limits``: the red team's shape (1 KB blocks: 1,000 to 4,000 of them) with both limits
  lifted. The block count grows with the reply, so the work stays quadratic: this is what the block limit is
  for (the exactly-once rule needs a scan of the file per block; no index of a file that changes under every
  block answers it for arbitrary text).
* ``MAX_BLOCKS blocks, size limit lifted``: the largest block count allowed, blocks as large as it takes.
  Applying is linear in the reply's size: the ratios should read about 1 : 2 : 4.
* ``with the limits``: the first series' replies (and one of 0.5 MB) as ``bench score`` sees them: refused
  before any block is applied (``too_many_blocks`` / ``reply_too_large``).

The first two series are measured with the per-block algorithm of before too (both line-end conversions of
the whole file per block), in the same run. Usage::

    PYTHONPATH=src/python python benchmarks/edit_apply.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.attempt.edits import MAX_BLOCKS, Edit, apply_edits, parse_edits
from bench.errors import EditError

PATH = "pkg/mod.py"
LINE = "x = 'padding of a hostile reply'\n"
SIZES_MB = (1, 2, 4)


def growing_reply(total_bytes: int, blocks: int) -> str:
    per_block = max(1, (total_bytes // blocks) // len(LINE))
    block = f"{PATH}\n<<<<<<< SEARCH\nlast = 1\n=======\n{LINE * per_block}last = 1\n>>>>>>> REPLACE\n"
    return block * blocks


def old_apply(workspace: Path, edits: tuple[Edit, ...]) -> None:
    """The per-block algorithm before this change (count, convert the whole file twice, replace)."""
    target = workspace / PATH
    content = target.read_text()
    for edit in edits:
        crlf = "\r\n" in content and content.count("\r\n") == content.count("\n")
        text = content.replace("\r\n", "\n") if crlf else content
        if text.count(edit.search) != 1:
            raise EditError("not exactly once", reason="search_not_found")
        text = text.replace(edit.search, edit.replace, 1)
        content = text.replace("\n", "\r\n") if crlf else text
    target.write_text(content)


def new_apply(workspace: Path, edits: tuple[Edit, ...]) -> None:
    apply_edits(workspace, edits, (PATH,))


def seconds(reply: str, apply, repeat: int, **limits) -> float:
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="bench-edit-apply-") as scratch:
            workspace = Path(scratch)
            (workspace / "pkg").mkdir()
            (workspace / PATH).write_text("import os\n\nlast = 1\n")
            started = time.perf_counter()
            apply(workspace, parse_edits(reply, **limits))
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def series(name: str, blocks_of, apply, repeat: int, **limits) -> list[float]:
    row = [seconds(growing_reply(mb << 20, blocks_of(mb)), apply, repeat, **limits) for mb in SIZES_MB]
    ratios = " : ".join(f"{t / row[0]:.2f}" for t in row)
    times = ", ".join(f"{mb} MB {t * 1000:.0f} ms" for mb, t in zip(SIZES_MB, row))
    print(f"{name:<48} {times}  (ratios {ratios})")
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per point; the median is reported")
    args = parser.parse_args(argv)
    lifted = {"max_reply_bytes": None, "max_blocks": None}
    small = lambda mb: mb * 1024  # noqa: E731  (1 KB blocks)
    capped = lambda mb: MAX_BLOCKS  # noqa: E731
    old_small = series("small blocks, no limits, before", small, old_apply, args.repeat, **lifted)
    new_small = series("small blocks, no limits, now", small, new_apply, args.repeat, **lifted)
    old_capped = series(f"{MAX_BLOCKS} blocks, size limit lifted, before", capped, old_apply, args.repeat,
                        max_reply_bytes=None)
    new_capped = series(f"{MAX_BLOCKS} blocks, size limit lifted, now", capped, new_apply, args.repeat,
                        max_reply_bytes=None)
    print(f"now / before: small blocks {new_small[-1] / old_small[-1]:.2f} at 4 MB, "
          f"{MAX_BLOCKS} blocks {new_capped[-1] / old_capped[-1]:.2f} at 4 MB")
    for mb in (0.5, *SIZES_MB):
        reply = growing_reply(int(mb * (1 << 20)), int(mb * 1024))
        started = time.perf_counter()
        try:
            parse_edits(reply)
            verdict = "accepted"
        except EditError as exc:
            verdict = exc.reason
        print(f"with the limits, {mb} MB of small blocks: {verdict} in "
              f"{(time.perf_counter() - started) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
