"""The README starts where a user starts: what it measures, the two fresh-machine commands, then the user's
paths in the order a user takes them, with the variables and links each path needs; the pool's history lives in
docs/, not before the verbs."""

from __future__ import annotations

import re

from bench.testing.support import checkout_root

PATHS = ("Fresh machine: two commands", "Run it", "Run your model", "Bring predictions or your own agent",
         "Add a task", "Read the results", "Scale out", "Verbs")


def _readme() -> str:
    return (checkout_root() / "README.md").read_text(encoding="utf-8")


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_the_sections_follow_what_a_user_does_in_order():
    headings = list(_sections(_readme()))
    assert [h for h in headings if h in PATHS] == list(PATHS), headings
    assert headings[0] == PATHS[0]  # nothing (no pool history) before the two commands


def test_the_two_fresh_machine_commands_come_first_and_the_question_is_one_plain_sentence():
    text = _readme()
    head, first_section = text.split("\n## ", 1)[0], _sections(text)[PATHS[0]]
    assert "The question it answers:" in head and len(head.splitlines()) < 25
    block = first_section.split("```bash", 1)[1].split("```", 1)[0]
    assert "./pants run src/python/bench:score -- --model scripted" in block and "./pants test ::" in block


def test_running_ones_own_model_names_the_endpoint_and_key_variables_and_a_keyless_server():
    section = _sections(_readme())["Run your model"]
    for needed in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "_BASE_URL", "no key", "--controller", "--temperature 0"):
        assert needed in section, needed


def test_reading_results_links_the_record_reference_and_every_relative_link_resolves():
    text = _readme()
    assert "src/python/bench/report/README.md" in _sections(text)["Read the results"]
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    missing = [link for link in links if "://" not in link and not (checkout_root() / link).exists()]
    assert links and not missing, missing
