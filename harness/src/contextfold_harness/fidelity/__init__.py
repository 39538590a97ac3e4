"""Fidelity harness: how much of what the next model needs survives compaction.

:func:`run_fidelity` generates seeded long sessions of three kinds (a coding agent
editing files and running tests, customer support, research with sources), each with
planted *probes* of four kinds in the part that gets summarized:

``identifier``
    an exact fact or id (a commit hash, an order number, a DOI), checked by exact
    string match;
``artifact``
    the state of a file or record (created or modified, tests passed or failed, a
    ticket escalated);
``decision``
    a constraint, including a later user correction that overrides an earlier
    instruction;
``next_step``
    the pending step the user asked for.

It compacts each session 1, 3 and 10 times in a row (appending unrelated work between
compactions, each compaction anchored on the previous summary) and reports, per probe
kind and depth, the share of probes that survive in the compacted history. Identifiers
are always checked by string match. The other kinds are checked offline by their
``needles`` (the expected words on one line), or, with a ``judge`` transport, by an
LLM asked whether an agent seeing only the compacted history could answer the probe's
question (see :func:`judge_probe`). It is used by ``contextfold fidelity`` and
``bench/fidelity.py``; the summarizer is any
:class:`~contextfold.transports.base.CompletionTransport`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from contextfold.compaction import CompactionSettings
from contextfold.compaction._engine import compact_history
from contextfold.messages import Message
from contextfold.tokens import approx_token_counter, count_tokens
from contextfold.transports.base import CompletionTransport, complete_with_cap, model_of
from contextfold_harness.fidelity._build import history_text, probe_survives
from contextfold_harness.fidelity._heldout import HELDOUT_KINDS, generate_heldout
from contextfold_harness.fidelity._heldout2 import HELDOUT2_KINDS, generate_heldout2
from contextfold_harness.fidelity._heldout3 import HELDOUT3_KINDS, generate_heldout3
from contextfold_harness.fidelity._heldout4 import HELDOUT4_KINDS, generate_heldout4
from contextfold_harness.fidelity._heldout5 import HELDOUT5_KINDS, generate_heldout5
from contextfold_harness.fidelity._heldout6 import HELDOUT6_KINDS, generate_heldout6
from contextfold_harness.fidelity._heldout7 import HELDOUT7_KINDS, generate_heldout7
from contextfold_harness.fidelity._heldout8 import HELDOUT8_KINDS, generate_heldout8
from contextfold_harness.fidelity._heldout9 import HELDOUT9_KINDS, generate_heldout9
from contextfold_harness.fidelity._heldout10 import HELDOUT10_KINDS, generate_heldout10
from contextfold_harness.fidelity._heldout11 import HELDOUT11_KINDS, generate_heldout11
from contextfold_harness.fidelity._heldout12 import HELDOUT12_KINDS, generate_heldout12
from contextfold_harness.fidelity._heldout13 import HELDOUT13_KINDS, generate_heldout13
from contextfold_harness.fidelity._heldout14 import HELDOUT14_KINDS, generate_heldout14
from contextfold_harness.fidelity._heldout15 import HELDOUT15_KINDS, generate_heldout15
from contextfold_harness.fidelity._heldout16 import HELDOUT16_KINDS, generate_heldout16
from contextfold_harness.fidelity._heldout17 import HELDOUT17_KINDS, generate_heldout17
from contextfold_harness.fidelity._heldout18 import HELDOUT18_KINDS, generate_heldout18
from contextfold_harness.fidelity._heldout19 import HELDOUT19_KINDS, generate_heldout19
from contextfold_harness.fidelity._heldout20 import HELDOUT20_KINDS, generate_heldout20
from contextfold_harness.fidelity._heldout21 import HELDOUT21_KINDS, generate_heldout21
from contextfold_harness.fidelity._lossy import LossySummarizer
from contextfold_harness.fidelity._sessions import (
    PROBE_KINDS,
    SESSION_KINDS,
    Probe,
    ProbeKind,
    Session,
    SessionKind,
    generate_session,
)

__all__ = [
    "HELDOUT2_KINDS",
    "HELDOUT3_KINDS",
    "HELDOUT4_KINDS",
    "HELDOUT5_KINDS",
    "HELDOUT6_KINDS",
    "HELDOUT7_KINDS",
    "HELDOUT8_KINDS",
    "HELDOUT9_KINDS",
    "HELDOUT10_KINDS",
    "HELDOUT11_KINDS",
    "HELDOUT12_KINDS",
    "HELDOUT13_KINDS",
    "HELDOUT14_KINDS",
    "HELDOUT15_KINDS",
    "HELDOUT16_KINDS",
    "HELDOUT17_KINDS",
    "HELDOUT18_KINDS",
    "HELDOUT19_KINDS",
    "HELDOUT20_KINDS",
    "HELDOUT21_KINDS",
    "HELDOUT_KINDS",
    "HELDOUT_SETS",
    "PROBE_KINDS",
    "SESSION_KINDS",
    "FidelityReport",
    "LossySummarizer",
    "Probe",
    "ProbeKind",
    "Session",
    "SessionKind",
    "generate",
    "generate_heldout",
    "generate_heldout2",
    "generate_heldout3",
    "generate_heldout4",
    "generate_heldout5",
    "generate_heldout6",
    "generate_heldout7",
    "generate_heldout8",
    "generate_heldout9",
    "generate_heldout10",
    "generate_heldout11",
    "generate_heldout12",
    "generate_heldout13",
    "generate_heldout14",
    "generate_heldout15",
    "generate_heldout16",
    "generate_heldout17",
    "generate_heldout18",
    "generate_heldout19",
    "generate_heldout20",
    "generate_heldout21",
    "generate_session",
    "history_text",
    "judge_probe",
    "probe_survives",
    "run_fidelity",
]

HELDOUT_SETS: dict[str, tuple[tuple[str, ...], Callable[..., Session]]] = {
    "heldout": (HELDOUT_KINDS, generate_heldout),
    "heldout2": (HELDOUT2_KINDS, generate_heldout2),
    "heldout3": (HELDOUT3_KINDS, generate_heldout3),
    "heldout4": (HELDOUT4_KINDS, generate_heldout4),
    "heldout5": (HELDOUT5_KINDS, generate_heldout5),
    "heldout6": (HELDOUT6_KINDS, generate_heldout6),
    "heldout7": (HELDOUT7_KINDS, generate_heldout7),
    "heldout8": (HELDOUT8_KINDS, generate_heldout8),
    "heldout9": (HELDOUT9_KINDS, generate_heldout9),
    "heldout10": (HELDOUT10_KINDS, generate_heldout10),
    "heldout11": (HELDOUT11_KINDS, generate_heldout11),
    "heldout12": (HELDOUT12_KINDS, generate_heldout12),
    "heldout13": (HELDOUT13_KINDS, generate_heldout13),
    "heldout14": (HELDOUT14_KINDS, generate_heldout14),
    "heldout15": (HELDOUT15_KINDS, generate_heldout15),
    "heldout16": (HELDOUT16_KINDS, generate_heldout16),
    "heldout17": (HELDOUT17_KINDS, generate_heldout17),
    "heldout18": (HELDOUT18_KINDS, generate_heldout18),
    "heldout19": (HELDOUT19_KINDS, generate_heldout19),
    "heldout20": (HELDOUT20_KINDS, generate_heldout20),
    "heldout21": (HELDOUT21_KINDS, generate_heldout21),
}
"""The held-out sets by the name ``contextfold fidelity --kinds`` gives them: their kinds
and what generates their sessions (the one list a new set is added to)."""

DEFAULT_DEPTHS = (1, 3, 10)

_JUDGE_SYSTEM = (
    "You grade a memory test. You get the context an AI agent will continue from (a "
    "compacted conversation), a question about the earlier work and the correct answer. "
    "Reply YES if an agent that sees only this context would answer the question "
    "correctly, NO otherwise. Reply with the one word only."
)


async def judge_probe(judge: CompletionTransport, probe: Probe, text: str) -> bool:
    """Whether ``judge`` says an agent seeing only ``text`` answers ``probe`` correctly."""
    request = (
        f"<context>\n{text}\n</context>\n\nQuestion: {probe.question}\n"
        f"Correct answer: {probe.answer}\n\nYES or NO?"
    )
    completion = await complete_with_cap(
        judge, [Message.user(request)], (), _JUDGE_SYSTEM, max_output_tokens=8
    )
    return completion.text.strip().upper().startswith("YES")


@dataclass(slots=True)
class FidelityReport:
    """What survived: ``survived[kind][depth]`` / ``total[kind][depth]`` probes."""

    summarizer: str
    judge: str | None
    depths: tuple[int, ...]
    sessions: list[tuple[str, int]]
    survived: dict[str, dict[int, int]] = field(default_factory=dict)
    total: dict[str, dict[int, int]] = field(default_factory=dict)
    missed: list[dict[str, Any]] = field(default_factory=list)
    sizes: dict[int, list[int]] = field(default_factory=dict)
    """Per depth, each session's compacted history in tokens (approximate counter)."""
    ledger_tokens: list[int] = field(default_factory=list)
    """Every compaction's ledger section in tokens (0: nothing restored or carried)."""

    def mean_size(self, depth: int) -> float:
        """The mean size of the compacted histories after ``depth`` compactions."""
        sizes = self.sizes.get(depth, [])
        return sum(sizes) / len(sizes) if sizes else 0.0

    def share(self, kind: str, depth: int) -> float:
        """The share of ``kind`` probes that survived ``depth`` compactions (0 to 1)."""
        total = self.total.get(kind, {}).get(depth, 0)
        return self.survived.get(kind, {}).get(depth, 0) / total if total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "summarizer": self.summarizer,
            "judge": self.judge,
            "depths": list(self.depths),
            "sessions": [{"kind": k, "seed": s} for k, s in self.sessions],
            "survival": {
                kind: {str(d): round(self.share(kind, d), 4) for d in self.depths}
                for kind in PROBE_KINDS
            },
            "probes": {
                kind: self.total.get(kind, {}).get(self.depths[0], 0) for kind in PROBE_KINDS
            },
            "missed": self.missed,
            "mean_tokens": {str(d): round(self.mean_size(d)) for d in self.depths},
            "mean_ledger_tokens": round(
                sum(self.ledger_tokens) / max(len(self.ledger_tokens), 1), 1
            ),
        }

    def rows(self) -> list[list[str]]:
        """The table: a row per probe kind, a column per depth."""
        return [
            [kind, *(f"{self.share(kind, d):.0%}" for d in self.depths)] for kind in PROBE_KINDS
        ]

    def _count(self, probe: Probe, depth: int, ok: bool, session: Session) -> None:
        self.total.setdefault(probe.kind, {}).setdefault(depth, 0)
        self.survived.setdefault(probe.kind, {}).setdefault(depth, 0)
        self.total[probe.kind][depth] += 1
        if ok:
            self.survived[probe.kind][depth] += 1
        else:
            self.missed.append(
                {
                    "session": session.kind,
                    "seed": session.seed,
                    "depth": depth,
                    "kind": probe.kind,
                    "answer": probe.answer,
                }
            )


def generate(kind: str, seed: int, *, segments: int = 10) -> Session:
    """The session of ``kind`` for ``seed``: one of the tuned :data:`SESSION_KINDS`, of
    the held-out :data:`HELDOUT_KINDS`, of the second held-out set
    :data:`HELDOUT2_KINDS` (written after the ledger's rules last changed), of the third
    :data:`HELDOUT3_KINDS`, of the fourth :data:`HELDOUT4_KINDS`, of the fifth
    :data:`HELDOUT5_KINDS`, of the sixth :data:`HELDOUT6_KINDS`, of the seventh
    :data:`HELDOUT7_KINDS`, of the eighth :data:`HELDOUT8_KINDS`, of the ninth
    :data:`HELDOUT9_KINDS`, of the tenth :data:`HELDOUT10_KINDS`, of the eleventh
    :data:`HELDOUT11_KINDS`, of the twelfth :data:`HELDOUT12_KINDS`, of the thirteenth
    :data:`HELDOUT13_KINDS`, of the fourteenth :data:`HELDOUT14_KINDS`, of the
    fifteenth :data:`HELDOUT15_KINDS`, of the sixteenth :data:`HELDOUT16_KINDS`, of the
    seventeenth :data:`HELDOUT17_KINDS`, of the eighteenth :data:`HELDOUT18_KINDS`, of
    the nineteenth :data:`HELDOUT19_KINDS`, of the twentieth :data:`HELDOUT20_KINDS` or
    of the twenty-first :data:`HELDOUT21_KINDS` (each written without seeing the
    compaction code or the other sets)."""
    for kinds, make in HELDOUT_SETS.values():
        if kind in kinds:
            return make(kind, seed, segments=segments)
    if kind not in SESSION_KINDS:
        held_out = (k for kinds, _ in HELDOUT_SETS.values() for k in kinds)
        choices = ", ".join((*SESSION_KINDS, *held_out))
        raise ValueError(f"unknown session kind {kind!r}; choose from {choices}")
    return generate_session(kind, seed, segments=segments)


async def run_fidelity(
    summarizer: CompletionTransport,
    *,
    kinds: Sequence[str] = SESSION_KINDS,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    depths: Sequence[int] = DEFAULT_DEPTHS,
    judge: CompletionTransport | None = None,
    keep_recent: int = 4,
    max_summary_tokens: int = 4_000,
    user_message_budget: int = 2_000,
    fact_budget: int = 1_000,
    instructions: str | None = None,
) -> FidelityReport:
    """Compact every ``kinds`` × ``seeds`` session up to ``max(depths)`` times and count
    the probes that survive at each depth (see the module docstring).

    A compaction rejected by compaction's own checks raises, as it would in use.
    """
    depths = tuple(sorted(set(depths)))
    if not depths or depths[0] < 1:
        raise ValueError(f"depths must be positive compaction counts, got {depths!r}")
    report = FidelityReport(
        summarizer=model_of(summarizer).name,
        judge=None if judge is None else model_of(judge).name,
        depths=depths,
        sessions=[(k, s) for k in kinds for s in seeds],
    )
    opts = CompactionSettings(
        keep_recent=keep_recent,
        max_summary_tokens=max_summary_tokens,
        kept_tool_chars=8_000,
        user_message_budget=user_message_budget,
        fact_budget=fact_budget,
        instructions=instructions,
    ).options()
    for kind in kinds:
        for seed in seeds:
            session = generate(kind, seed, segments=depths[-1])
            history = [*session.opening, *session.segments[0]]
            for depth in range(1, depths[-1] + 1):
                result = await compact_history(history, summarizer, opts, require_smaller=False)
                if result is None:
                    raise ValueError(f"the {kind} session {seed} was too short to compact")
                compacted = result.messages
                report.ledger_tokens.append(result.facts.tokens)
                if depth in depths:
                    report.sizes.setdefault(depth, []).append(
                        count_tokens(compacted, approx_token_counter)
                    )
                    text = history_text(compacted)
                    for probe in session.probes:
                        if judge is None or probe.kind == "identifier":
                            ok = probe_survives(probe, text)
                        else:
                            ok = await judge_probe(judge, probe, text)
                        report._count(probe, depth, ok, session)
                if depth < depths[-1]:
                    history = [*compacted, *session.segments[depth]]
    return report
