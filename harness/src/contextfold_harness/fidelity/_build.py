"""The pieces of a generated session: probes, sessions, a message builder, noise.

Shared by the three session kinds in :mod:`._sessions`.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.messages import Message

__all__ = [
    "PROBE_KINDS",
    "SESSION_KINDS",
    "WORDS",
    "Builder",
    "Parts",
    "Probe",
    "ProbeKind",
    "Session",
    "SessionKind",
    "Template",
    "build_session",
    "hexits",
    "history_text",
    "noise_lines",
    "probe_survives",
    "prose",
    "segments_of",
    "token",
]

ProbeKind: TypeAlias = Literal["identifier", "artifact", "decision", "next_step"]
SessionKind: TypeAlias = Literal["coding", "support", "research"]
PROBE_KINDS: tuple[ProbeKind, ...] = ("identifier", "artifact", "decision", "next_step")
SESSION_KINDS: tuple[SessionKind, ...] = ("coding", "support", "research")


@dataclass(frozen=True, slots=True)
class Probe:
    """A fact planted in the part of a session that gets summarized.

    ``needles`` is the offline check: for ``identifier`` probes the one exact string that
    must appear; for the others, groups of alternatives (case-insensitive) that must all
    appear on one line of the compacted history. ``question`` and ``answer`` are what an
    LLM judge is asked and what it grades against.
    """

    kind: ProbeKind
    question: str
    answer: str
    needles: tuple[tuple[str, ...], ...]


@dataclass(slots=True)
class Session:
    """A generated session: the opening (with the probes), then the filler segments."""

    kind: str
    seed: int
    opening: list[Message]
    segments: list[list[Message]]
    probes: list[Probe] = field(default_factory=list)


class Builder:
    """Writes messages with tool calls and keeps the call ids unique."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.messages: list[Message] = []
        self._calls = 0

    def user(self, text: str) -> None:
        self.messages.append(Message.user(text))

    def assistant(self, text: str) -> None:
        self.messages.append(Message.assistant(text))

    def tool(self, text: str, name: str, args: dict[str, object], output: str) -> None:
        self._calls += 1
        call = f"call_{self.rng.randrange(16**8):08x}{self._calls}"
        self.messages.append(
            Message("assistant", [TextBlock(text), ToolUseBlock(call, name, args)])
        )
        self.messages.append(Message("user", [ToolResultBlock(call, output)]))

    def take(self) -> list[Message]:
        taken, self.messages = self.messages, []
        return taken


def token(
    rng: random.Random, n: int, alphabet: str = string.ascii_uppercase + string.digits
) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def hexits(rng: random.Random, n: int) -> str:
    return token(rng, n, "0123456789abcdef")


def noise_lines(rng: random.Random, n: int, make: Callable[[random.Random], str]) -> str:
    return "\n".join(make(rng) for _ in range(n))


WORDS: tuple[str, ...] = (
    "cache",
    "retry",
    "handler",
    "queue",
    "parser",
    "budget",
    "window",
    "session",
)
WORDS += ("token", "stream", "worker", "batch", "index", "shard", "lease", "ledger")
WORDS += ("report", "export", "import", "schema", "column", "invoice", "payment", "user")


def prose(rng: random.Random, sentences: int) -> str:
    out = []
    for _ in range(sentences):
        words = [rng.choice(WORDS) for _ in range(rng.randint(8, 14))]
        out.append(" ".join(words).capitalize() + ".")
    return " ".join(out)


def segments_of(
    rng: random.Random, b: Builder, count: int, filler: Callable[[random.Random], None]
) -> list[list[Message]]:
    out = []
    for _ in range(count):
        for _ in range(rng.randint(2, 3)):
            filler(rng)
        out.append(b.take())
    return out


Parts: TypeAlias = tuple[list[Message], list[list[Message]], list[Probe]]
"""What a session kind writes: the opening, the filler segments, the probes."""

Template: TypeAlias = Callable[[random.Random, "Builder", int], Parts]
"""A session kind: it writes a session's :data:`Parts` from a seeded generator."""


def build_session(
    templates: Mapping[str, Template],
    kind: str,
    seed: int,
    segments: int,
    *,
    seed_prefix: str,
    label: str,
) -> Session:
    """The session ``templates[kind]`` writes, from a generator seeded with
    ``f"{seed_prefix}{kind}:{seed}"``: the same seed always gives the same session. An
    unknown ``kind`` raises :class:`ValueError` ("unknown {label} kind ...") naming the
    kinds to choose from."""
    if kind not in templates:
        raise ValueError(f"unknown {label} kind {kind!r}; choose from {', '.join(templates)}")
    rng = random.Random(f"{seed_prefix}{kind}:{seed}")
    opening, filler, probes = templates[kind](rng, Builder(rng), segments)
    return Session(kind, seed, opening, filler, probes)


def history_text(messages: Sequence[Message]) -> str:
    """Every text a model sees in ``messages`` (tool outputs included)."""
    parts: list[str] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            else:
                parts.append(str(getattr(block, "content", "") or getattr(block, "input", "")))
    return "\n".join(parts)


def probe_survives(probe: Probe, text: str) -> bool:
    """The offline check: an identifier appears exactly; the needles of the other kinds
    (each group's alternatives, case-insensitive) all appear on one line of ``text``."""
    if probe.kind == "identifier":
        return probe.needles[0][0] in text
    for line in text.lower().splitlines():
        if all(any(option.lower() in line for option in group) for group in probe.needles):
            return True
    return False
