from bench.environment import compile_cache
from bench.sandbox.protocol import ExecResult


def _ran(code=0):
    return ExecResult(code, None, False, False, b"out", b"err", False, False, 1.5, 1.0)


def _step(tmp_path, requirements="pytest\n", held=None):
    step = tmp_path / "step"
    step.mkdir(exist_ok=True)
    (step / "requirements.in").write_text(requirements)
    if held is not None:
        (step / "held.txt").write_text(held)
    return step


def test_the_key_parts_by_command_environment_image_tool_and_every_input_file(tmp_path):
    step = _step(tmp_path)
    args = (("pip-compile", "--x"), step, "sha256:i", ("/venvs/k:/env",), (("A", "1"),))
    key = compile_cache.compile_key(*args)
    assert key == compile_cache.compile_key(*args)
    assert compile_cache.compile_key(("pip-compile", "--y"), *args[1:]) != key
    assert compile_cache.compile_key(*args[:2], "sha256:j", *args[3:]) != key
    assert compile_cache.compile_key(*args[:3], ("/venvs/l:/env",), args[4]) != key
    assert compile_cache.compile_key(*args[:4], (("A", "2"),)) != key
    (step / "requirements.in").write_text("pytest<8\n")
    assert compile_cache.compile_key(*args) != key
    (step / "requirements.in").write_text("pytest\n")
    (step / "held.txt").write_text("pluggy==1.5.0\n")
    assert compile_cache.compile_key(*args) != key


def test_a_successful_compile_is_given_back_with_its_output_file_and_a_failed_one_never(tmp_path):
    step, store = _step(tmp_path), tmp_path / "store"
    output = step / "requirements.lock"
    output.write_text("pytest==8.3.4 --hash=sha256:aa\n")
    compile_cache.save(store, "k", output, _ran())
    output.unlink()
    again = compile_cache.load(store, "k", output)
    assert again is not None and again.ok and (again.stdout, again.stderr) == (b"out", b"err")
    assert output.read_text() == "pytest==8.3.4 --hash=sha256:aa\n"
    compile_cache.save(store, "failed", output, _ran(1))
    assert compile_cache.load(store, "failed", output) is None
    (store / "damaged.json").write_text("{")
    assert compile_cache.load(store, "damaged", output) is None
