"""Progress on stderr: a bar for long work when stderr is a terminal, a line per step otherwise."""

from __future__ import annotations

import sys
from typing import Iterable, Iterator, TypeVar

from bench.variables import get

T = TypeVar("T")


def progress(items: Iterable[T], *, desc: str, total: int | None = None) -> Iterator[T]:
    items = list(items) if total is None else items
    total = len(items) if total is None else total  # type: ignore[arg-type]
    if get("BENCH_NO_PROGRESS") == "1" or total == 0:
        yield from items
        return
    from tqdm import tqdm

    yield from tqdm(items, desc=desc, total=total, file=sys.stderr, leave=False,
                    disable=not sys.stderr.isatty(), dynamic_ncols=True)


class Bar:
    """A bar updated by hand (for work finished out of order by a pool of workers)."""

    def __init__(self, total: int, desc: str) -> None:
        from tqdm import tqdm

        self._bar = tqdm(total=total, desc=desc, file=sys.stderr, leave=False, dynamic_ncols=True,
                         disable=get("BENCH_NO_PROGRESS") == "1" or not sys.stderr.isatty())

    def update(self, n: int = 1, **postfix: object) -> None:
        if postfix:
            self._bar.set_postfix(postfix, refresh=False)
        self._bar.update(n)

    def close(self) -> None:
        self._bar.close()
