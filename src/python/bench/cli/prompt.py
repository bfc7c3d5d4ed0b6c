"""`bench prompt TASK`: print exactly what a model is shown for a task (bring your own worker)."""

from __future__ import annotations

import argparse

EPILOG = """examples:
  bench prompt synthetic.interval_merge            system and user messages as text
  bench prompt synthetic.interval_merge --json     the messages as JSON, with the prompt's sha256
Then pipe an edit back with `bench check TASK < edit.txt`.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    from bench.cli.check import add_task_arguments

    p = sub.add_parser("prompt", help="print a task's prompt", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_task_arguments(p, format_help="the answer format the prompt asks for (bench check takes the same option)")
    p.add_argument("--json", action="store_true", help="print the chat messages and their sha256 as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import json

    from bench.attempt.prompt import build_prompt
    from bench.cli.check import persistent_task

    task = persistent_task(args)
    prompt = build_prompt(task.spec, task.pristine, spec_text=task.spec_text, edit_format=args.edit_format)
    if args.json:
        print(json.dumps({"task_id": task.spec.task_id, "sha256": prompt.sha256,
                          "messages": [{"role": m.role, "content": m.content} for m in prompt.messages]},
                         indent=2, ensure_ascii=False))
    else:
        for message in prompt.messages:
            print(f"===== {message.role} =====\n{message.content}")
    return 0
