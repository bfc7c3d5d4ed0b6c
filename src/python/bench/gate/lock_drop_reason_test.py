from bench.gate.drops import lock_drop_reason


def test_a_lock_drop_names_old_code_that_no_longer_runs_apart_from_a_lock_pip_could_not_make():
    old = ("collecting the test requirements of repo failed (exit code 1):\n"
           '  File "/work/repo/setup.py", line 4, in <module>\nModuleNotFoundError: No module named \'imp\'\n')
    assert lock_drop_reason(old) == "old_code_does_not_run: ModuleNotFoundError: No module named 'imp'"
    pip = ("pip-compile failed: metadata of simplejson==3.17.6 could not be generated: "
           "ModuleNotFoundError: No module named 'distutils'\n…")
    assert lock_drop_reason(pip).startswith("lock_failed: pip-compile failed: metadata of simplejson==3.17.6 could not")


def test_a_lock_drop_in_the_repositorys_build_backend_says_what_the_backend_printed():
    message = ("collecting the test requirements of repo failed (exit code 1):\n"
               "running dist_info\nerror: [Errno 2] No such file or directory: 'README.rst'\n"
               "Traceback (most recent call last):\n  File \"/work/collect.py\", line 379, in <module>\n"
               "build._exceptions.BuildBackendException: Backend subprocess exited when trying to invoke "
               "prepare_metadata_for_build_wheel\n")
    assert lock_drop_reason(message) == ("lock_failed: the repository's build backend failed in "
                                         "prepare_metadata_for_build_wheel: error: [Errno 2] No such file or "
                                         "directory: 'README.rst'")
