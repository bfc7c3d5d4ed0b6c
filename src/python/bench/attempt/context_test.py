"""Context policies and budgets (bench.attempt.context, context_prompt) through build_prompt, on small
constructed repositories. The SmolLM2 budget test runs the real llama.cpp tokenizer, like
bench/model/llamacpp_test.py: never skipped, so a missing llama-cpp-python fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.attempt.code_map import CodeMap, map_code
from bench.attempt.context import MIN_BUDGET, Block, ContextSettings, fill
from bench.attempt.context_prompt import current_files
from bench.attempt.prompt import build_prompt, feedback_message
from bench.errors import UsageError
from bench.model.tokenizers import count_messages, get_tokenizer
from bench.spec.model import Provenance, TaskSpec


def make_spec(**overrides) -> TaskSpec:
    fields = dict(
        task_id="pkg-1",
        kind="pr",
        repo="owner/pkg",
        source_files=("pkg/core.py",),
        test_files=("tests/test_core.py",),
        fail_to_pass=("tests/test_core.py::test_parse",),
        pass_to_pass=("tests/test_core.py::test_other",),
        image="py311",
        lockfile="lockfiles/tasks/pkg-1.lock",
        provenance=Provenance("pull-request", pr_number=1, url="https://example.invalid/pkg/pull/1",
                              merged_at="2024-01-02", title="Fix parse"),
        base_sha="ba5e000000000000000000000000000000000001",
        fix_sha="f1x0000000000000000000000000000000000002",
    )
    fields.update(overrides)
    return TaskSpec(**fields)


def read(workspace: Path, path: str) -> str | None:
    file = workspace / path
    return file.read_text() if file.is_file() else None


def user_text(prompt) -> str:
    assert [m.role for m in prompt.messages] == ["system", "user"]
    return prompt.messages[1].content


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


# --- a small repository: exact output ---

# Line numbers matter: the traceback and the expected ranges below are counted on this text.
CORE = '''\
"""Core."""
from pkg.util import clean

LIMIT = 10


class Parser:
    """Parses."""

    sep = ","

    def __init__(self, text):
        self.text = clean(text)

    def run(self):
        return parse_items(self.text, self.sep)


def parse_items(text, sep):
    items = text.split(sep)
    if len(items) > LIMIT:
        raise ValueError("too many")
    return items[1:]


def unreached_helper(value):
    doubled = value * 2
    return doubled + 1
'''

UTIL = '''\
def clean(text):
    return text.strip()


def slugify_title(title):
    words = title.lower().split()
    return "-".join(words)


def unrelated_thing(x):
    return x
'''

TEST = '''\
from pkg.core import Parser
from pkg.util import slugify_title


def test_parse():
    assert Parser("a,b").run() == ["a", "b"]


def test_slug():
    assert slugify_title("Hello World") == "hello-world"


def test_other():
    assert True
'''

TRACEBACK = """\
    def test_parse():
>       assert Parser("a,b").run() == ["a", "b"]

tests/test_core.py:6: 
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
pkg/core.py:16: in run
    return parse_items(self.text, self.sep)
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

>       return items[1:]
E       AssertionError

pkg/core.py:23: AssertionError
"""

UNREACHED_BODY = "    doubled = value * 2\n    return doubled + 1\n"
PARSE_ITEMS = '''\
def parse_items(text, sep):
    items = text.split(sep)
    if len(items) > LIMIT:
        raise ValueError("too many")
    return items[1:]
'''


@pytest.fixture
def small(tmp_path: Path) -> Path:
    return write(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/util.py": UTIL,
                            "tests/test_core.py": TEST})


def localized(small: Path, **settings):
    return build_prompt(make_spec(), small, context=ContextSettings("localized", **settings),
                        failure_texts=(TRACEBACK,))


def test_localized_without_budget_shows_reached_code_outline_and_module_code(small: Path):
    prompt = localized(small)
    # module code 1-2 and 4; Parser's own lines 7-8 and 10 and __init__ 12-13 (imported by the test);
    # run 15-16 and parse_items 19-23 (traceback); the outline adds unreached_helper's header, 26
    assert prompt.shown.shown.ranges("pkg/core.py") == (
        (1, 2), (4, 4), (7, 8), (10, 10), (12, 13), (15, 16), (19, 23), (26, 26))
    assert [(b.path, b.label) for b in prompt.shown.shown.blocks if b.label != "<tests>"] == [
        ("pkg/core.py", "parse_items"),
        ("pkg/core.py", "Parser.run"),
        ("pkg/core.py", "Parser"),
        ("pkg/core.py", "Parser.__init__"),
        ("pkg/core.py", "<outline>"),
        ("pkg/core.py", "<module>"),
    ]
    assert not prompt.shown.shown.cut


def test_localized_prompt_shows_the_traceback_function_verbatim_and_only_the_header_of_the_rest(small: Path):
    text = user_text(localized(small))
    shown = CORE.replace(UNREACHED_BODY, "# ⋮ lines 27-28 not shown\n")
    assert "### pkg/core.py (26 of 28 lines shown)\n\n```python\n" + shown + "```\n" in text
    assert PARSE_ITEMS in text
    assert "def unreached_helper(value):\n" in text
    assert "doubled" not in text
    assert "Only parts of some files are shown." in text
    # the failing test's source and id, not the other tests
    assert '- tests/test_core.py::test_parse\n' in text
    assert 'assert Parser("a,b").run() == ["a", "b"]' in text
    assert "test_other" not in text and "test_slug" not in text


def test_localized_record_says_what_the_prompt_is(small: Path):
    prompt = localized(small)
    count = count_messages(get_tokenizer("estimate"), [m.content for m in prompt.messages])
    assert prompt.context == {"policy": "localized", "budget": None, "tokenizer": "estimate",
                              "prompt_tokens": count, "cut": False, "blocks": [7, 7]}


def test_same_inputs_give_the_same_context_prompt(small: Path, tmp_path_factory):
    twin = write(tmp_path_factory.mktemp("twin"), {"pkg/__init__.py": "", "pkg/core.py": CORE,
                                                   "pkg/util.py": UTIL, "tests/test_core.py": TEST})
    for settings in (ContextSettings("localized", 1500), ContextSettings("retrieval"),
                     ContextSettings("files", 2000)):
        first = build_prompt(make_spec(), small, context=settings, failure_texts=(TRACEBACK,))
        second = build_prompt(make_spec(), twin, context=settings, failure_texts=(TRACEBACK,))
        assert first.messages == second.messages and first.sha256 == second.sha256
        assert first.context == second.context


@pytest.mark.parametrize("spec_text", ["", "# Parser\n\nSplits text.\n"])
def test_default_context_settings_give_the_unchanged_prompt(small: Path, spec_text: str):
    plain = build_prompt(make_spec(), small, spec_text=spec_text)
    with_default = build_prompt(make_spec(), small, spec_text=spec_text, context=ContextSettings(),
                                failure_texts=(TRACEBACK,))
    assert with_default.messages == plain.messages
    assert [m.content.encode() for m in with_default.messages] == [m.content.encode() for m in plain.messages]
    assert with_default.sha256 == plain.sha256
    assert with_default.context is None and plain.context is None
    assert "Only parts of some files are shown." not in user_text(plain)


def test_retrieval_ranks_the_function_the_test_names_first_and_shows_other_files_read_only(small: Path):
    spec = make_spec(fail_to_pass=("tests/test_core.py::test_slug",))
    prompt = build_prompt(spec, small, context=ContextSettings("retrieval"))
    code_blocks = [(b.path, b.label, b.editable) for b in prompt.shown.shown.blocks if b.label != "<tests>"]
    assert code_blocks[0] == ("pkg/util.py", "slugify_title", False)
    text = user_text(prompt)
    editable, related = text.split("## Related code (read-only)\n\n", 1)
    related, tests = related.split("## Failing tests", 1)
    assert related.startswith("These files cannot be edited; they are shown as context.\n\n### pkg/util.py (")
    assert 'def slugify_title(title):\n    words = title.lower().split()\n    return "-".join(words)\n' in related
    assert "slugify_title(title)" not in editable
    assert "### pkg/util.py" not in editable and "### pkg/core.py" in editable
    assert "unrelated_thing" not in text  # shares no word with the test
    assert 'assert slugify_title("Hello World") == "hello-world"' in tests


def test_current_files_show_the_edited_text_of_a_shown_function(small: Path):
    prompt = localized(small)
    edited = CORE.replace("    return items[1:]\n", "    return items\n")
    edited = edited.replace('"""Core."""\n', '"""Core."""\nimport os\nimport sys\n')  # lines move down by 2
    (small / "pkg/core.py").write_text(edited)
    editable = current_files(small, prompt.shown, read)
    new_parse_items = PARSE_ITEMS.replace("    return items[1:]\n", "    return items\n")
    assert new_parse_items in editable
    assert "items[1:]" not in editable
    assert "import os\nimport sys\n" in editable  # the module code block, found again
    assert "def unreached_helper(value):\n# ⋮ lines 29-30 not shown\n" in editable
    assert "doubled" not in editable
    message = feedback_message("1 test still fails\n", current_files=(("pkg/core.py", edited),),
                               shown=prompt.shown, tree=small)
    assert "The parts of the editable files shown before now read:\n\n" + editable in message.content


def test_current_files_drop_a_shown_function_that_was_removed(small: Path):
    prompt = localized(small)
    (small / "pkg/core.py").write_text(CORE.replace(PARSE_ITEMS, ""))
    editable = current_files(small, prompt.shown, read)
    assert "parse_items" in editable  # still called in Parser.run
    assert "def parse_items" not in editable


def test_a_budget_lists_at_most_thirty_failing_test_ids_and_counts_the_rest(small: Path):
    ids = tuple(f"tests/test_core.py::test_parse[{i}]" for i in range(40))
    spec = make_spec(fail_to_pass=ids)
    budgeted = user_text(build_prompt(spec, small, context=ContextSettings("localized", 3000)))
    assert "".join(f"- {test_id}\n" for test_id in ids[:30]) + "- (and 10 more)\n" in budgeted
    assert ids[30] not in budgeted
    unbudgeted = user_text(build_prompt(spec, small, context=ContextSettings("localized")))
    assert "".join(f"- {test_id}\n" for test_id in ids) + "\n" in unbudgeted
    assert "more)" not in unbudgeted


def test_localized_shows_a_missing_file_as_new_and_a_file_that_does_not_parse_whole(small: Path):
    write(small, {"pkg/broken.py": "def f(:\n    pass\n"})
    spec = make_spec(source_files=("pkg/core.py", "pkg/new.py", "pkg/broken.py"))
    text = user_text(build_prompt(spec, small, context=ContextSettings("localized"), failure_texts=(TRACEBACK,)))
    assert "### pkg/new.py\n\n(This file does not exist yet; create it with an empty SEARCH.)\n" in text
    assert "### pkg/broken.py\n\n```python\ndef f(:\n    pass\n```\n" in text


LAYOUT_CORE = '''\
def other_fn(value):
    return value


def target(value):
    return value + 1
'''

LAYOUT_TEST = '''\
from pkg.core import target


def test_increment():
    value = other_fn(1)
    assert target(value) == 1
'''


@pytest.mark.parametrize("layout", ["", "src/", "lib/"])
def test_localized_puts_names_imported_from_the_tasks_package_first(tmp_path: Path, layout: str):
    # other_fn is used first in the test, but target is imported from the task's package `pkg`: rank 1
    # before rank 2. For lib/pkg/core.py the package is `pkg` too (bench.spec.model.import_packages);
    # context_prompt._package_of only strips "src/", so under lib/ the import is not recognised.
    write(tmp_path, {f"{layout}pkg/__init__.py": "", f"{layout}pkg/core.py": LAYOUT_CORE,
                     "tests/test_core.py": LAYOUT_TEST})
    spec = make_spec(source_files=(f"{layout}pkg/core.py",), fail_to_pass=("tests/test_core.py::test_increment",))
    prompt = build_prompt(spec, tmp_path, context=ContextSettings("localized"))
    labels = [b.label for b in prompt.shown.shown.blocks if b.label != "<tests>"]
    assert labels[:2] == ["target", "other_fn"]


@pytest.mark.parametrize("budget", [0, 1, MIN_BUDGET - 1])
def test_a_budget_below_the_minimum_is_a_usage_error(budget: int):
    with pytest.raises(UsageError, match="too small"):
        ContextSettings("localized", budget)


def test_the_minimum_budget_is_a_thousand_tokens():
    assert MIN_BUDGET == 1000
    assert ContextSettings("files", 1000).budget == 1000


@pytest.mark.parametrize("policy", ["", "whole", "Files", "bm25"])
def test_an_unknown_policy_is_a_usage_error(policy: str):
    with pytest.raises(UsageError, match="unknown context policy"):
        ContextSettings(policy)


def test_an_unknown_tokenizer_is_a_usage_error(small: Path):
    with pytest.raises(UsageError, match="unknown tokenizer"):
        build_prompt(make_spec(), small, context=ContextSettings("localized", 2000, tokenizer="words"))


# --- a big repository: budgets and block boundaries ---

FUNCTIONS = 80


def big_core() -> str:
    lines = ['"""Core of the big package."""', "from pkg.extra import helper_0", "", "LIMIT = 10", "", "",
             "@register", "class Registry(Base):", '    """A registry of values."""', "", "    size = 3", "",
             "    def __init__(self, items):", "        self.items = list(items)", "",
             "    def lookup(self, key):", "        return compute_value_0(key) + self.size", "", "",
             "    class Entry:", "        kind = 'entry'", "", "        def describe(self):",
             "            return self.kind", "", ""]
    for i in range(FUNCTIONS):
        lines += [f"def compute_value_{i}(", "    value,", f"    scale={i},", "):", f'    """Compute step {i}."""',
                  "    total = value * scale", f"    for offset in range({i % 7}):", "        total += offset",
                  f"    return compute_value_{i + 1}(total) if total < LIMIT else helper_{i % 5}(total)", "", ""]
    lines += ['if __name__ == "__main__":', "    print(compute_value_0(1))"]
    return "\n".join(lines) + "\n"


def big_extra() -> str:
    parts = ['"""Helpers (not editable)."""', ""]
    for i in range(40):
        parts += ["", f"def helper_{i}(amount):", f"    adjusted = amount + {i}", "    return adjusted * LIMIT", ""]
    return "\n".join(parts)


BIG_TEST = '''\
from pkg.core import Registry, compute_value_0


def test_lookup():
    assert Registry([1]).lookup(2) == 5


def test_compute():
    assert compute_value_0(1) == 2


def test_fine():
    assert True
'''


def big_traceback(core: str) -> str:
    lines = core.splitlines()
    lookup = next(i for i, line in enumerate(lines, 1) if "return compute_value_0(key)" in line)
    step = next(i for i, line in enumerate(lines, 1) if "return compute_value_4(total)" in line)
    return (f"tests/test_core.py:5: \n_ _ _\npkg/core.py:{lookup}: in lookup\n"
            f"    return compute_value_0(key) + self.size\npkg/core.py:{step}: in compute_value_3\n"
            "E   TypeError\n")


BIG_SPEC = dict(fail_to_pass=("tests/test_core.py::test_lookup", "tests/test_core.py::test_compute"),
                pass_to_pass=("tests/test_core.py::test_fine",))


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    return write(tmp_path_factory.mktemp("big"), {"pkg/__init__.py": "", "pkg/core.py": big_core(),
                                                  "pkg/extra.py": big_extra(), "tests/test_core.py": BIG_TEST,
                                                  "setup.py": "from setuptools import setup\nsetup()\n"})


def big_prompt(big: Path, policy: str, budget: int | None, tokenizer: str = "estimate"):
    return build_prompt(make_spec(**BIG_SPEC), big, context=ContextSettings(policy, budget, tokenizer),
                        failure_texts=(big_traceback(big_core()),))


BUDGETS = range(1000, 6001, 250)


def test_the_big_repository_does_not_fit_the_largest_budget(big: Path):
    whole = build_prompt(make_spec(**BIG_SPEC), big)
    assert count_messages(get_tokenizer("estimate"), [m.content for m in whole.messages]) > max(BUDGETS)


@pytest.mark.parametrize("policy", ["files", "localized", "retrieval"])
@pytest.mark.parametrize("budget", BUDGETS)
def test_a_budget_is_never_exceeded_and_the_record_counts_the_prompt(big: Path, policy: str, budget: int):
    prompt = big_prompt(big, policy, budget)
    count = count_messages(get_tokenizer("estimate"), [m.content for m in prompt.messages])
    assert count <= budget
    assert prompt.context["prompt_tokens"] == count
    assert prompt.context["budget"] == budget and prompt.context["policy"] == policy
    assert prompt.context["cut"] is True
    kept, offered = prompt.context["blocks"]
    assert kept == len(prompt.shown.shown.blocks) < offered


def shown_lines(prompt, path: str = "pkg/core.py") -> int:
    return sum(end - start + 1 for start, end in prompt.shown.shown.ranges(path))


@pytest.mark.parametrize("policy", ["localized", "retrieval"])
def test_a_larger_budget_never_shows_less_of_the_editable_file(big: Path, policy: str):
    # Fails for "localized" at 2500 and 2750 tokens (26 lines shown, against 130 at 2250): the outline's
    # estimated cost leaves out the blocks after it, the exact count then takes the outline back, and the
    # blocks it had crowded out are never tried again (see test_blocks_taken_back_make_room_for_later_blocks).
    lines = {budget: shown_lines(big_prompt(big, policy, budget)) for budget in BUDGETS}
    budgets = list(BUDGETS)
    shrinking = [(smaller, larger, lines[smaller], lines[larger])
                 for smaller, larger in zip(budgets, budgets[1:]) if lines[larger] < lines[smaller]]
    assert shrinking == []
    assert lines[budgets[0]] < lines[budgets[-1]]


def test_localized_budget_keeps_the_traceback_functions_first(big: Path):
    prompt = big_prompt(big, "localized", 1500)
    labels = [b.label for b in prompt.shown.shown.blocks]
    assert labels[:4] == ["<tests>", "compute_value_3", "Registry.lookup", "Registry"]
    text = user_text(prompt)
    assert "def compute_value_3(\n    value,\n    scale=3,\n):\n" in text


def lines_of(ranges) -> set[int]:
    return {line for start, end in ranges for line in range(start, end + 1)}


def assert_cut_at_block_boundaries(code: CodeMap, shown_ranges) -> None:
    shown = lines_of(shown_ranges)
    pieces: set[int] = lines_of(code.module_code)
    module = lines_of(code.module_code)
    assert shown & module in (set(), module)
    for definition in code.definitions:
        header = lines_of([definition.header])
        if definition.kind == "class":
            own = lines_of(definition.own)
            assert shown & own in (set(), header, own), definition.qualname
            pieces |= own
        else:
            span = lines_of([definition.span])
            assert shown & span in (set(), header, span), definition.qualname
            pieces |= span
    assert shown <= pieces  # no line outside every block (blank lines between definitions)


@pytest.mark.parametrize("policy", ["localized", "retrieval"])
@pytest.mark.parametrize("budget", [*BUDGETS, None])
def test_code_is_cut_at_block_boundaries_never_inside_a_definition(big: Path, policy: str, budget):
    prompt = big_prompt(big, policy, budget)
    code = map_code("pkg/core.py", big_core())
    assert_cut_at_block_boundaries(code, prompt.shown.shown.ranges("pkg/core.py"))


@pytest.mark.parametrize("budget", [1000, 3000, 6000, 60000])
def test_files_policy_shows_an_editable_file_whole_or_not_at_all(big: Path, budget: int):
    prompt = big_prompt(big, "files", budget)
    line_count = len(big_core().splitlines())
    expected = ((1, line_count),) if budget == 60000 else ()
    assert prompt.shown.shown.ranges("pkg/core.py") == expected
    assert ("```python\n" + big_core() + "```\n" in user_text(prompt)) == (budget == 60000)


def test_budget_is_respected_in_smollm2_tokens(big: Path):
    tokenizer = get_tokenizer("llamacpp/smollm2")
    for budget in (1000, 2500, 4000):
        prompt = big_prompt(big, "localized", budget, tokenizer="llamacpp/smollm2")
        count = count_messages(tokenizer, [m.content for m in prompt.messages])
        assert count <= budget
        assert prompt.context["prompt_tokens"] == count
        assert prompt.context["tokenizer"] == "llamacpp/smollm2"
        assert prompt.context["cut"] is True
        # what is recorded is SmolLM2's count, not the estimate's
        assert count_messages(get_tokenizer("estimate"), [m.content for m in prompt.messages]) != count


# --- fill on its own: blocks with a made-up estimated cost and an exact cost ---

ESTIMATED = {"a": 10, "b": 50, "c": 30, "d": 30, "e": 200}
EXACT = {"a": 10, "b": 100, "c": 30, "d": 30, "e": 200}  # "b" renders dearer than estimated


def blocks_named(*names: str) -> list[Block]:
    return [Block("pkg/core.py", name, ((1, 1),)) for name in names]


def fill_named(names: str, budget: int | None, fixed: int = 0) -> str:
    kept = fill(blocks_named(*names), budget=budget, fixed_tokens=fixed,
                cost=lambda block: ESTIMATED[block.label],
                total=lambda blocks: fixed + sum(EXACT[block.label] for block in blocks))
    return "".join(block.label for block in kept)


def test_fill_without_budget_keeps_every_block_in_order():
    assert fill_named("ebdca", None) == "ebdca"


def test_fill_leaves_out_a_block_that_does_not_fit_and_tries_the_next():
    assert fill_named("aecd", 100) == "acd"
    assert fill_named("acd", 70) == "acd"
    assert fill_named("acd", 69) == "ac"


def test_fill_counts_the_fixed_part_of_the_prompt():
    assert fill_named("acd", 100, fixed=40) == "ac"


def test_fill_takes_blocks_back_until_the_exact_count_fits():
    assert fill_named("ab", 100) == "a"  # estimated 60, exactly 110


def test_blocks_taken_back_make_room_for_later_blocks():
    # Estimated, a+b+c fits 100 and d does not; exactly, a+b is 110. Once b is taken back, c and d fit (70
    # tokens) and are kept; fill keeps only a (10 tokens of 100) because it takes back c as well and never
    # tries c and d again.
    assert fill_named("abcd", 100) == "acd"


def test_fill_is_a_usage_error_when_even_no_code_does_not_fit():
    with pytest.raises(UsageError, match="raise --context-budget"):
        fill_named("a", 1000, fixed=1001)
