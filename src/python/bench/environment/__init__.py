"""Hermetic environments: scoring images (rootfs tars), task locks, wheelhouse and cached venvs."""
