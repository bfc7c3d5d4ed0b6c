"""Verdicts: running a task's tests in the sandbox, reading their JUnit report, grading the outcome, and the
integrity guard that keeps an edit from writing its own verdict (docs/verdict-integrity.md)."""
