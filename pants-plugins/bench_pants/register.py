"""Registers the target types and rules with Pants (listed in pants.toml's backend_packages)."""

from bench_pants import certify_goal, harness, score_goal
from bench_pants.targets import BenchImageTarget, BenchTaskTarget


def target_types():
    return [BenchTaskTarget, BenchImageTarget]


def rules():
    return [*harness.rules(), *certify_goal.rules(), *score_goal.rules()]
