import subprocess
import sys

import pytest

from bench.errors import UsageError
from bench.sandbox import registry
from bench.testing.support import child_env


def test_available_lists_both_backends():
    assert {"bwrap", "docker"} <= set(registry.available())


def test_get_sandbox_imports_and_instantiates_the_backend():
    sandbox = registry.get_sandbox("bwrap")
    from bench.sandbox.bwrap import BwrapSandbox

    assert isinstance(sandbox, BwrapSandbox) and sandbox.name == "bwrap"


def test_unknown_backend_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown sandbox backend 'nope'; known: bwrap, docker"):
        registry.get_sandbox("nope")


def test_register_adds_a_backend_by_name():
    @registry.register("unit-test-fake")
    class Fake:
        name = "unit-test-fake"

        def run(self, request):
            raise AssertionError

    try:
        assert isinstance(registry.get_sandbox("unit-test-fake"), Fake)
        assert "unit-test-fake" in registry.available()
    finally:
        registry._registered.pop("unit-test-fake")


def test_importing_the_registry_loads_no_backend():
    code = ("import sys, bench.sandbox.registry\n"
            "print(sorted(m for m in sys.modules if m in ('bench.sandbox.bwrap', 'bench.sandbox.docker', 'docker')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert done.stdout.strip() == "[]", done.stderr
