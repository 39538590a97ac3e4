"""``contextfold demo``: a long agent session that compacts itself, shown live.

By default everything is offline: the model is a :class:`~contextfold.testing.FunctionTransport`
driven by :class:`~contextfold_harness.scenario.SimulatedCoder`, the summarizer is the
:class:`~contextfold.cli._extractive.ExtractiveSummarizer`, and the session lives in a
SQLite database wrapped in :class:`~contextfold.compaction.AutoCompactStore` with a
small simulated window. With ``provider`` set, a real model drives the same tools
and also writes the summaries.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contextfold.agent import Agent
from contextfold.cli._extractive import ExtractiveSummarizer
from contextfold.cli._output import DemoView, print_table
from contextfold.compaction import AutoCompactStore, CompactionEvent, CompactionSettings
from contextfold.stores.sqlite import SQLiteContextStore, connect
from contextfold.testing import FunctionTransport
from contextfold.transports.base import (
    Completion,
    CompletionTransport,
    MeteredTransport,
    ModelInfo,
    Usage,
)
from contextfold_harness.scenario import (
    SYSTEM_PROMPT,
    SimulatedCoder,
    VirtualRepo,
    prompt_for,
    repo_tools,
)

__all__ = ["DemoResult", "print_summary", "run_demo"]


def _count_call(result: DemoResult, view: DemoView, completion: Completion) -> None:
    """Report one agent call's usage to the demo."""
    usage = completion.usage
    result.model_calls += 1
    result.agent_usage = result.agent_usage + usage
    result.peak_context = max(result.peak_context, usage.input_tokens)
    result.context = usage.input_tokens
    view.usage(usage.input_tokens, result.model_calls)


@dataclass
class DemoResult:
    """What one demo run did (also its ``--json`` output)."""

    session_id: str = ""
    db: str = ""
    model: str = ""
    window: int = 0
    limit: int = 0
    turns: int = 0
    model_calls: int = 0
    context: int = 0
    peak_context: int = 0
    agent_usage: Usage = field(default_factory=lambda: Usage(0, 0))
    summarizer_usage: Usage = field(default_factory=lambda: Usage(0, 0))
    compactions: list[dict[str, Any]] = field(default_factory=list)
    failed_compactions: int = 0
    messages_live: int = 0
    messages_archived: int = 0
    transcript_messages: int = 0
    elapsed_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "db": self.db,
            "model": self.model,
            "window": self.window,
            "compaction_limit": self.limit,
            "turns": self.turns,
            "model_calls": self.model_calls,
            "compaction_count": len(self.compactions),
            "compactions": self.compactions,
            "failed_compactions": self.failed_compactions,
            "peak_context_tokens": self.peak_context,
            "final_context_tokens": self.context,
            "agent_tokens": _usage_json(self.agent_usage),
            "summarizer_tokens": _usage_json(self.summarizer_usage),
            "messages_live": self.messages_live,
            "messages_archived": self.messages_archived,
            "transcript_messages": self.transcript_messages,
            "elapsed_s": round(self.elapsed_s, 3),
        }

    def table_rows(self) -> list[tuple[str, str]]:
        return [
            ("turns", f"{self.turns}"),
            ("model calls", f"{self.model_calls}"),
            (
                "compactions",
                f"{len(self.compactions)}"
                + (f" ({self.failed_compactions} failed)" if self.failed_compactions else ""),
            ),
            (
                "peak context",
                f"{self.peak_context:,} / {self.window:,} tokens "
                f"({self.peak_context / self.window:.0%})",
            ),
            ("final context", f"{self.context:,} tokens"),
            (
                "agent tokens (in / out)",
                f"{self.agent_usage.input_tokens:,} / {self.agent_usage.output_tokens:,}",
            ),
            (
                "summarizer tokens (in / out)",
                f"{self.summarizer_usage.input_tokens:,} / {self.summarizer_usage.output_tokens:,}",
            ),
            ("messages live / archived", f"{self.messages_live} / {self.messages_archived}"),
            ("full transcript", f"{self.transcript_messages} messages (still readable)"),
            ("session", f"{self.session_id} in {self.db}"),
            ("time", f"{self.elapsed_s:.1f} s"),
        ]


def _usage_json(usage: Usage) -> dict[str, int]:
    return {"input": usage.input_tokens, "output": usage.output_tokens}


async def run_demo(
    *,
    turns: int,
    db_path: Path,
    window: int,
    view: DemoView,
    transport: CompletionTransport | None = None,
    delay: float = 0.0,
) -> DemoResult:
    """Run the session; ``transport=None`` means the offline simulated model.

    Raises what the store or a real transport raises (the CLI turns it into one line).
    """
    if turns < 1:
        raise ValueError(f"--turns must be at least 1, got {turns}")
    if window < 4_096:
        raise ValueError(f"--window must be at least 4096 tokens, got {window}")
    result = DemoResult(db=str(db_path), window=window, turns=turns)
    coder = SimulatedCoder()
    offline = transport is None
    if transport is None:
        model = ModelInfo("simulated-coder", window, min(4_096, window // 4))
        transport = FunctionTransport(coder, model=model, enforce_window=True)
        summarizer: CompletionTransport = ExtractiveSummarizer(max_summary_chars=6_000)
    else:
        summarizer = transport
    result.model = transport.model.name
    db_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    conn = await connect(db_path)
    try:
        metered = MeteredTransport(transport, lambda done: _count_call(result, view, done))
        current_turn = 0

        def on_event(event: CompactionEvent) -> None:
            if event.phase != "after":
                return
            if event.outcome in ("compacted", "committed", "truncated"):
                _record_compaction(result, event, current_turn, view)
            elif event.outcome in ("rejected", "failed"):
                result.failed_compactions += 1
                view.line(f"  ! compaction {event.outcome}: {event.error}")

        inner = SQLiteContextStore(conn)
        store = AutoCompactStore(
            inner,
            metered,
            max_tokens=int(window * 0.75),
            summary_transport=summarizer,
            keep_recent=6,
            on_event=on_event,
            settings=CompactionSettings(agent_system=SYSTEM_PROMPT),
        )
        result.session_id, result.limit = store.session_id, store.limit
        repo = VirtualRepo.invoicing()
        agent = Agent(SYSTEM_PROMPT, metered, repo_tools(repo), max_iterations=16)
        label = f"{result.model} (offline)" if offline else result.model
        view.start(model=label, window=window, limit=result.limit, turns=turns)
        try:
            for turn in range(turns):
                current_turn = turn + 1
                coder.begin_turn(turn)
                view.turn(current_turn, prompt_for(turn))
                await agent.run(prompt_for(turn), store)
                view.turn_done(result.context, result.model_calls)
                if delay:
                    await asyncio.sleep(delay)
        finally:
            view.stop()
        result.summarizer_usage = store.summarizer_usage
        result.messages_live = len(await inner.get_history())
        result.messages_archived = sum(1 for a in await inner.get_archive() if not a.synthetic)
        result.transcript_messages = len(await inner.get_full_transcript())
    finally:
        await conn.close()
    result.elapsed_s = time.monotonic() - started
    return result


def _record_compaction(
    result: DemoResult, event: CompactionEvent, turn: int, view: DemoView
) -> None:
    usage = event.summarizer_usage or Usage(0, 0)
    result.compactions.append(
        {
            "turn": turn,
            "trigger": event.trigger,
            "tokens_before": event.tokens_before,
            "tokens_after": event.tokens_after,
            "messages_before": event.messages_before,
            "messages_after": event.messages_after,
            "summary_tokens": event.summary_tokens,
            "summarizer_tokens": _usage_json(usage),
            "duration_s": round(event.duration_s, 4),
        }
    )
    if event.tokens_after is not None:
        result.context = event.tokens_after
    view.usage(result.context, result.model_calls)
    arrow = "→" if view.fancy else "->"
    view.line(
        f"  compaction #{len(result.compactions)} (turn {turn}, {event.trigger} trigger): "
        f"{event.tokens_before:,} {arrow} {event.tokens_after or 0:,} tokens, "
        f"{event.messages_before} {arrow} {event.messages_after} messages, "
        f"summary {event.summary_tokens or 0:,} tokens"
    )


def print_summary(result: DemoResult) -> None:
    print_table("Session summary", ("", ""), result.table_rows())
