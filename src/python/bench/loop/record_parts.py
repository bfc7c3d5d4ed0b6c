"""The parts a score record (``bench.loop.records``) is made of: how a unit or turn ended, one turn of a loop,
the tokens a model call reported and what a context policy says of a prompt. Each reads and writes its JSON
object as ``bench.loop.records`` does the record's: ``None`` is a field not written, unknown keys are kept."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from bench.loop import convergence
from bench.loop._fields import Fields, Pairs, listed, put, with_extra


class Outcome(str, enum.Enum):
    """How a unit or a turn ended (docs/ARCHITECTURE.md §2); ``bench.verdict.grade`` decides the ones a test
    run decides, scoring the rest."""

    SOLVED = "solved"
    MODEL_MISS = "model_miss"
    TAMPERED = "tampered"
    INVALID_EDIT = "invalid_edit"
    MODEL_TIMEOUT = "model_timeout"
    INFRASTRUCTURE_ERROR = "infrastructure_error"


OUTCOMES = tuple(outcome.value for outcome in Outcome)  # in the order tables show them
# A turn with one of these emitted no code: whatever digest it recorded, it has no candidate.
NO_CANDIDATE_OUTCOMES = (Outcome.INVALID_EDIT, Outcome.MODEL_TIMEOUT, Outcome.INFRASTRUCTURE_ERROR)


@dataclass(frozen=True)
class Usage:
    """Tokens a model reported for one call; ``{}`` (all None) when the call gave no answer."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    extra: Pairs = ()

    @property
    def total(self) -> int:
        return sum(value or 0 for value in (self.prompt_tokens, self.completion_tokens, self.reasoning_tokens))

    def to_json(self) -> dict:
        out: dict[str, Any] = {}
        for name in _USAGE_KEYS:
            put(out, name, getattr(self, name))
        return with_extra(out, self.extra)

    @classmethod
    def from_json(cls, data: Any, where: str = "usage") -> "Usage":
        read = Fields(data, where, "usage field", "'usage'")
        return cls(*(read.optional_integer(name) for name in _USAGE_KEYS), extra=read.extra(_USAGE_KEYS))


_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "reasoning_tokens")


@dataclass(frozen=True)
class PromptContext:
    """What a run with a context policy or budget says of a unit's first prompt (``bench.attempt.context``)."""

    policy: str
    budget: int | None  # tokens of the whole prompt; None: no budget
    tokenizer: str  # what budget and prompt_tokens count in
    prompt_tokens: int | None
    cut: bool  # blocks were left out to fit the budget
    blocks: tuple[int, ...]  # (shown, offered)
    extra: Pairs = ()

    def to_json(self) -> dict:
        return with_extra({"policy": self.policy, "budget": self.budget, "tokenizer": self.tokenizer,
                            "prompt_tokens": self.prompt_tokens, "cut": self.cut, "blocks": list(self.blocks)},
                           self.extra)

    @classmethod
    def from_json(cls, data: Any, where: str = "context") -> "PromptContext":
        read = Fields(data, where, "context field", "'context'")
        return cls(read.text("policy", default="files"), read.optional_integer("budget"),
                   read.text("tokenizer", default="estimate"), read.optional_integer("prompt_tokens"),
                   read.flag("cut", default=False), read.integers("blocks") or (),
                   extra=read.extra(("policy", "budget", "tokenizer", "prompt_tokens", "cut", "blocks")))


@dataclass(frozen=True, kw_only=True)
class TurnRecord:
    """One turn of a loop (or one draw of a resampling run) as its record holds it."""

    turn: int  # 1-based, consecutive
    outcome: Outcome
    resolved: bool | None = None  # None: not written (records made before the field existed)
    verified: bool | None = None  # the verified tier's answer for a resolved turn; None: not resolved or not run
    reason: str = ""
    signature: str = ""  # bench.loop.signature.failure_signature of the state after the turn
    candidate_digest: str = ""  # bench.loop.signature.candidate_digest of the editable files
    compiles: bool = True
    failing: tuple[str, ...] = ()  # failing target test ids
    response_sha256: str | None = None  # None: not written (the turn had no reply)
    edited_files: tuple[str, ...] | None = None
    worker_tokens: int = 0
    controller_tokens: int = 0
    guidance: str | None = None  # what a controller said; None: not written (no reply to guide)
    extra: Pairs = ()  # (key, canonical JSON) of fields this module does not know

    @property
    def is_resolved(self) -> bool:
        """As recorded; records made before ``resolved`` existed: solved."""
        return self.resolved if self.resolved is not None else self.outcome is Outcome.SOLVED

    def convergence_turn(self) -> convergence.Turn:
        """The turn as the classifier reads it back: converged when resolved (docs/ARCHITECTURE.md §1: a turn
        that passes its targets but breaks a pass_to_pass test is still failing), no candidate if it emitted no
        code."""
        digest = convergence.NO_CANDIDATE if self.outcome in NO_CANDIDATE_OUTCOMES else self.candidate_digest
        return convergence.Turn(self.turn, digest, self.signature, self.is_resolved, self.compiles)

    def to_json(self) -> dict:
        out: dict[str, Any] = {"turn": self.turn, "outcome": self.outcome.value}
        put(out, "resolved", self.resolved)
        put(out, "verified", self.verified)
        out.update(reason=self.reason, signature=self.signature, candidate_digest=self.candidate_digest,
                   compiles=self.compiles, failing=list(self.failing))
        put(out, "response_sha256", self.response_sha256)
        put(out, "edited_files", listed(self.edited_files))
        out.update(worker_tokens=self.worker_tokens, controller_tokens=self.controller_tokens)
        put(out, "guidance", self.guidance)
        return with_extra(out, self.extra)

    @classmethod
    def from_json(cls, data: Any, where: str = "turn") -> "TurnRecord":
        read = Fields(data, where, "turn", "each turn")
        return cls(
            turn=read.integer("turn"), outcome=read.choice("outcome", Outcome), resolved=read.optional_flag("resolved"),
            verified=read.optional_flag("verified"), reason=read.text("reason", default=""), signature=read.text("signature", default=""),
            candidate_digest=read.text("candidate_digest", default=""), compiles=read.flag("compiles", default=True),
            failing=read.texts("failing") or (), response_sha256=read.optional_text("response_sha256"),
            edited_files=read.texts("edited_files"), worker_tokens=read.integer("worker_tokens", default=0),
            controller_tokens=read.integer("controller_tokens", default=0), guidance=read.optional_text("guidance"),
            extra=read.extra(_TURN_KEYS))


_TURN_KEYS = ("turn", "outcome", "resolved", "verified", "reason", "signature", "candidate_digest", "compiles", "failing",
              "response_sha256", "edited_files", "worker_tokens", "controller_tokens", "guidance")
