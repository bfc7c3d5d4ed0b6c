# Symbols every BUILD file sees ([GLOBAL].build_file_prelude_globs in pants.toml).


def with_pool_history(overrides, names):
    """python_tests overrides with //:pool-history (the retired and dropped tasks, see the root BUILD) added to
    the dependencies of each test file in ``names``; a file without an override keeps //:test-base."""
    result = dict(overrides)
    for name in names:
        entry = dict(result.get(name, {}))
        entry["dependencies"] = [*entry.get("dependencies", ["//:test-base"]), "//:pool-history"]
        result[name] = entry
    return result


def each_alone(overrides, names):
    """python_tests overrides with each test file in ``names`` kept out of the shared pytest processes
    (batch_compatibility_tag None): it runs in a process of its own."""
    result = dict(overrides)
    for name in names:
        result[name] = {**result.get(name, {}), "batch_compatibility_tag": None}
    return result
