"""`bench prompt TASK`: print exactly what a model is shown for a task (bring your own worker)."""

from __future__ import annotations

import argparse
import sys

EPILOG = """examples:
  bench prompt synthetic.interval_merge            system and user messages as text
  bench prompt synthetic.interval_merge --json     the messages as JSON, with the prompt's sha256
  bench prompt click-3021 --context localized --context-budget 8000 --tokenizer llamacpp/smollm2
                                                   the code the failing tests reach, in 8,000 SmolLM2 tokens
Then pipe an edit back with `bench check TASK < edit.txt`.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    from bench.cli.check import add_task_arguments

    p = sub.add_parser("prompt", help="print a task's prompt", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_task_arguments(p, format_help="the answer format the prompt asks for (bench check takes the same option)")
    p.add_argument("--json", action="store_true", help="print the chat messages and their sha256 as JSON")
    from bench.cli.score import add_context_arguments

    add_context_arguments(p, tokenizer_default="estimate")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import json

    from bench.cli.check import persistent_task
    from bench.cli.score import context_settings
    from bench.score.attempt import task_prompt
    from bench.store.action_cache import ActionCache

    task = persistent_task(args)
    # localized and retrieval read the failing tests' output at base: one sandboxed run, cached like verdicts
    prompt = task_prompt(task, args.edit_format, context_settings(args), ActionCache("verdicts"))
    if args.json:
        print(json.dumps({"task_id": task.spec.task_id, "sha256": prompt.sha256,
                          **({"context": prompt.context} if prompt.context else {}),
                          "messages": [{"role": m.role, "content": m.content} for m in prompt.messages]},
                         indent=2, ensure_ascii=False))
    else:
        for message in prompt.messages:
            print(f"===== {message.role} =====\n{message.content}")
        if prompt.context:
            context = prompt.context
            kept, offered = context["blocks"]
            print(f"({context['policy']} context: {context['prompt_tokens']} tokens by {context['tokenizer']}"
                  + (f" of a budget of {context['budget']}" if context["budget"] else "")
                  + f"; {kept} of {offered} blocks shown)", file=sys.stderr)
    return 0
