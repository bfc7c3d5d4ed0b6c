"""No task counts a pytest plugin's check of a file's text (pytest-black's BLACK, pytest-mypy's mypy, …) among
its fail_to_pass or pass_to_pass tests: the scored run rewrites the test files, and such a check then fails
whatever the candidate did (bench.gate.admit.is_file_check)."""

from bench.gate.admit import is_file_check
from bench.spec.load import discover, load_all
from bench.testing.support import checkout_root


def test_no_task_in_the_pool_counts_a_plugins_check_of_a_files_text():
    found = sorted((spec.task_id, test_id) for spec in load_all(discover(checkout_root()))
                   for test_id in (*spec.fail_to_pass, *spec.pass_to_pass) if is_file_check(test_id))
    assert found == []
