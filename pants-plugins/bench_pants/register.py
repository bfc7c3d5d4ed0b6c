"""Registers the target types and rules with Pants (listed in pants.toml's backend_packages)."""

from bench_pants import certify_goal
from bench_pants.targets import BenchImageTarget, BenchTaskTarget


def target_types():
    return [BenchTaskTarget, BenchImageTarget]


def rules():
    return [*certify_goal.rules()]
