"""The certification gate: a task is admitted only if its tests flip from failing to passing, K times each side."""
