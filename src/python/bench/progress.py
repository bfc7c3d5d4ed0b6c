"""Progress on stderr: a bar for long work on a terminal, plain lines elsewhere (CI, nohup, a pipe, a
pseudo-terminal with no width), each with the count, the share done, an ETA and counts by outcome."""

from __future__ import annotations

import shutil
import sys
import time
from collections import Counter
from typing import Iterable, Iterator, TypeVar

from bench.variables import get

T = TypeVar("T")
LINES = 50  # at most about this many progress lines for a run printed line by line


def on_terminal() -> bool:
    """A bar only where it can be drawn: stderr a terminal that reports a width."""
    return sys.stderr.isatty() and shutil.get_terminal_size(fallback=(0, 0)).columns > 0


def progress(items: Iterable[T], *, desc: str, total: int | None = None) -> Iterator[T]:
    items = list(items) if total is None else items
    total = len(items) if total is None else total  # type: ignore[arg-type]
    if get("BENCH_NO_PROGRESS") == "1" or total == 0:
        yield from items
        return
    bar = Bar(total, desc)
    try:
        for item in items:
            yield item
            bar.update(1)
    finally:
        bar.close()


class Bar:
    """Progress updated by hand (work finished out of order by a pool of workers): a tqdm bar on a terminal,
    else a line every ``total / LINES`` steps (and at the end)."""

    def __init__(self, total: int, desc: str) -> None:
        self.total, self.desc = total, desc
        self.done, self.started = 0, time.monotonic()
        self.skipped = 0  # done before this process started (a resumed run): not in the rate or the ETA
        self.outcomes: Counter = Counter()
        self.every = max(1, total // LINES)
        quiet = get("BENCH_NO_PROGRESS") == "1" or total == 0
        self._bar = None
        self._lines = not quiet and not on_terminal()
        if not quiet and not self._lines:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, file=sys.stderr, leave=False, dynamic_ncols=True)

    def update(self, n: int = 1, **postfix: object) -> None:
        self.done += n
        last = postfix.get("last")
        if last:
            self.outcomes[str(last)] += n
        if self._bar is not None:
            if postfix:
                self._bar.set_postfix(postfix, refresh=False)
            self._bar.update(n)
        elif self._lines and (self.done % self.every == 0 or self.done >= self.total):
            print(self.line(), file=sys.stderr, flush=True)

    def skip(self, n: int) -> None:
        """``n`` of the units are done already (recorded by an earlier, interrupted run): the bar starts at
        ``n / total`` and ends at 100 %; the ETA comes from the units done now."""
        if n <= 0:
            return
        self.done += n
        self.skipped += n
        if self._bar is not None:
            self._bar.initial = self._bar.n = self._bar.last_print_n = self.done
            self._bar.set_postfix({"resumed": n}, refresh=True)
        elif self._lines:
            print(self.line(), file=sys.stderr, flush=True)

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        share = self.done / self.total if self.total else 1.0
        now = self.done - self.skipped
        eta = elapsed / now * (self.total - self.done) if now else 0.0
        counts = ", ".join(f"{name} {count}" for name, count in sorted(self.outcomes.items()))
        resumed = f", {self.skipped} resumed" if self.skipped else ""
        return (f"{self.desc}: {self.done}/{self.total} ({share:.0%}{resumed}) elapsed {_clock(elapsed)}, "
                f"ETA {_clock(eta)}" + (f" — {counts}" if counts else ""))

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s"
