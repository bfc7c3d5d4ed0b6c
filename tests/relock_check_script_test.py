"""scripts/relock_check.py: where two lock texts part, and its usage without a selector."""

import subprocess
import sys

from bench.testing.support import checkout_root, script_module

SCRIPT = checkout_root() / "scripts" / "relock_check.py"


def _module():
    return script_module("scripts/relock_check.py", "relock_check")


def test_first_difference_names_the_line_where_the_texts_part():
    module = _module()
    old = "# header\npytest==8.3.4 \\\n    --hash=sha256:aa\n"
    assert module.first_difference(old, old.replace("8.3.4", "8.3.5")) == \
        "line 2: 'pytest==8.3.4 \\\\' -> 'pytest==8.3.5 \\\\'"
    assert module.first_difference(old, old + "six==1.17.0\n") == "lengths 3 -> 4 lines"


def test_without_a_selector_it_prints_its_usage_and_exits_2():
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert done.returncode == 2 and "relock_check.py" in done.stderr

