"""Mining candidate tasks (merged bug-fix pull requests) from git history; see :mod:`bench.mine.miner`."""
