"""Scoring: a model's edits applied to a certified task and judged by the task's tests in the sandbox."""
