"""Masking first vs summarization only: tokens and summarizer cost per 100 turns.

The session is the one ``contextfold demo`` runs: a simulated coding agent
(:class:`~contextfold_harness.scenario.SimulatedCoder`) working on a virtual repository
with ``list_dir``, ``read_file``, ``grep``, ``edit_file`` and ``run_tests``, for 100
user turns, in a 32k-token window (compaction limit 0.75 of it). It runs twice, side
by side in one process, around a :class:`~contextfold.stores.memory.MemoryContextStore`:

* **summarization only**: ``AutoCompactStore`` as it ships;
* **masking first**: ``AutoCompactStore(mask_tool_outputs=MaskToolOutputs())``: tool
  outputs of 2,000 characters or more outside the last 3 rounds become placeholders
  with a recall handle; a summary is written only when masking alone does not reach
  the target. A third run masks harder (outside the last round, from 500 characters).

The summarizer is the offline extractive one (its usage is the token count of what
it reads and writes, as a model would bill it). Reported: the agent's prompt tokens
(what the agent pays to send its context, every call), the summarizer's requests and
tokens, the compactions by outcome, the peak prompt, and the share of originals
still recallable from the store's archive. The dollar figures are that usage at an
illustrative list price of $3 per million input and $15 per million output tokens.

Run: ``python bench/recall.py``. Prints a markdown table.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field

from contextfold import (
    Agent,
    AutoCompactStore,
    CompactionEvent,
    MemoryContextStore,
    ModelInfo,
    Usage,
)
from contextfold._masking import masked_handle, output_handle
from contextfold.cli._extractive import ExtractiveSummarizer
from contextfold.compaction import CompactionSettings
from contextfold.recall import recall
from contextfold.strategies import MaskToolOutputs
from contextfold.testing import FunctionTransport
from contextfold.transports.base import MeteredTransport
from contextfold_harness.scenario import (
    SYSTEM_PROMPT,
    SimulatedCoder,
    VirtualRepo,
    prompt_for,
    repo_tools,
)

TURNS = 100
WINDOW = 32_768
PRICE_IN, PRICE_OUT = 3.0, 15.0  # dollars per million tokens (illustrative)


@dataclass
class Run:
    name: str
    agent: Usage = field(default_factory=lambda: Usage(0, 0))
    calls: int = 0
    peak: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    summarizer: Usage = field(default_factory=lambda: Usage(0, 0))
    summarizer_requests: int = 0
    handles: int = 0
    recalled: int = 0
    archived: int = 0
    recall_ms: float = 0.0
    seconds: float = 0.0

    def note_call(self, usage: Usage) -> None:
        """Count one agent call."""
        self.calls += 1
        self.agent = self.agent + usage
        self.peak = max(self.peak, usage.input_tokens)

    @property
    def summarizer_dollars(self) -> float:
        usage = self.summarizer
        return (usage.input_tokens * PRICE_IN + usage.output_tokens * PRICE_OUT) / 1e6

    @property
    def agent_dollars(self) -> float:
        usage = self.agent
        return (usage.input_tokens * PRICE_IN + usage.output_tokens * PRICE_OUT) / 1e6


async def session(name: str, mask: MaskToolOutputs | None) -> Run:
    run = Run(name)
    coder = SimulatedCoder()
    model = ModelInfo("simulated-coder", WINDOW, 4_096)
    agent_transport = MeteredTransport(
        FunctionTransport(coder, model=model, enforce_window=True),
        lambda done: run.note_call(done.usage),
    )
    summarizer = ExtractiveSummarizer(max_summary_chars=6_000)

    def on_event(event: CompactionEvent) -> None:
        if event.phase == "after" and event.outcome is not None:
            run.outcomes[event.outcome] += 1

    inner = MemoryContextStore()
    store = AutoCompactStore(
        inner,
        agent_transport,
        max_tokens=int(WINDOW * 0.75),
        summary_transport=summarizer,
        keep_recent=6,
        on_event=on_event,
        settings=CompactionSettings(agent_system=SYSTEM_PROMPT, mask_tool_outputs=mask),
    )
    agent = Agent(SYSTEM_PROMPT, agent_transport, repo_tools(VirtualRepo.invoicing()), 16)
    started = time.perf_counter()
    for turn in range(TURNS):
        coder.begin_turn(turn)
        await agent.run(prompt_for(turn), store)
    run.seconds = time.perf_counter() - started
    run.summarizer = store.summarizer_usage
    run.summarizer_requests = summarizer.requests
    # Every large original that left the live history: can it still be read back?
    live = {
        masked_handle(r) or output_handle(r)
        for m in await inner.get_history()
        for r in m.tool_results
    }
    gone = {
        output_handle(r)
        for a in await inner.get_archive()
        for r in a.message.tool_results
        if masked_handle(r) is None and len(str(r.content)) >= 2_000
    } - {h for h in live if h}
    run.handles = len(gone)
    run.archived = len(await inner.get_archive())
    started = time.perf_counter()
    for handle in gone:
        page = await recall(inner, handle, max_chars=100_000)
        run.recalled += page.next_offset is None and page.total_chars >= 2_000
    run.recall_ms = (time.perf_counter() - started) * 1000 / max(len(gone), 1)
    return run


def table(runs: list[Run]) -> str:
    base = runs[0]

    def versus(value: float, of_base: float, text: str, run: Run) -> str:
        return text if run is base or not of_base else f"{text} ({value / of_base:.2f}x)"

    rows = [
        (
            "agent prompt tokens (sum over calls)",
            lambda r: versus(
                r.agent.input_tokens, base.agent.input_tokens, f"{r.agent.input_tokens:,}", r
            ),
        ),
        ("agent cost at list price", lambda r: f"${r.agent_dollars:.2f}"),
        ("model calls", lambda r: f"{r.calls}"),
        ("peak prompt (tokens)", lambda r: f"{r.peak:,}"),
        (
            "summarizer requests",
            lambda r: versus(
                r.summarizer_requests, base.summarizer_requests, f"{r.summarizer_requests}", r
            ),
        ),
        (
            "summarizer tokens (in / out)",
            lambda r: f"{r.summarizer.input_tokens:,} / {r.summarizer.output_tokens:,}",
        ),
        (
            "summarizer cost at list price",
            lambda r: versus(
                r.summarizer_dollars, base.summarizer_dollars, f"${r.summarizer_dollars:.3f}", r
            ),
        ),
        (
            "compactions by outcome",
            lambda r: (
                ", ".join(
                    f"{k} {v}"
                    for k, v in sorted(r.outcomes.items())
                    if k not in ("held", "skipped")
                )
                or "none"
            ),
        ),
        ("large outputs out of the live history", lambda r: f"{r.handles}"),
        ("... of them recalled whole by handle", lambda r: f"{r.recalled}"),
        (
            "one recall: mean time (archive size)",
            lambda r: f"{r.recall_ms:.1f} ms ({r.archived:,} messages)",
        ),
        ("wall time (s)", lambda r: f"{r.seconds:.1f}"),
    ]
    lines = [
        f"### Recall: masking first vs summarization only ({TURNS} turns of the demo session, "
        f"{WINDOW:,}-token window)",
        "",
        f"| per {TURNS} turns | " + " | ".join(r.name for r in runs) + " |",
        "|---|" + "---:|" * len(runs),
    ]
    for label, cell in rows:
        lines.append(f"| {label} | " + " | ".join(cell(r) for r in runs) + " |")
    lines += [
        "",
        "`prepared` counts plans made in the background at 0.6 of the window (a masked "
        "plan costs no request); `committed` counts prepared summaries spliced in; `masked` "
        "counts commits that called no model. Ratios are against summarization only.",
    ]
    return "\n".join(lines)


async def main() -> None:
    runs = [
        await session("summarization only", None),
        await session("masking first, `MaskToolOutputs()`", MaskToolOutputs()),
        await session(
            "masking first, `MaskToolOutputs(1, min_chars=500)`",
            MaskToolOutputs(1, min_chars=500),
        ),
    ]
    print(table(runs))


if __name__ == "__main__":
    asyncio.run(main())
