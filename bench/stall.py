"""How long does the agent wait for a summary? Preparation off vs on, side by side.

A scripted agent whose model takes 0.2 s a call runs turns that each add about 1.5 % of
a 20,000-token window, so usage crosses the compaction limit gradually, several times.
The summarizer takes 2 s. For every compaction the table records how long the caller
of ``add_context_tokens`` / ``get_history`` actually waited: the whole summary when
preparation is off, only the splice when a summary prepared in the background is ready.

Run: ``python bench/stall.py`` (about 70 s; ``--quick`` shortens the delays 10x).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from contextfold import (
    Agent,
    AutoCompactStore,
    CompactionEvent,
    MemoryContextStore,
    ModelInfo,
)
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response

WINDOW = ModelInfo("bench-model", 20_000, 2_000)
SUMMARY = "<summary>\n## Current state\nWorking through the task list.\n</summary>"


async def run(
    prepare: float | None, *, turns: int, agent_s: float, summary_s: float
) -> list[float]:
    """The seconds the agent waited at each compaction."""

    async def agent_model(request: StubRequest) -> StubResponse:
        await asyncio.sleep(agent_s)
        return make_text_response("done with this step " + "z" * 600)

    async def summarizer(request: StubRequest) -> StubResponse:
        await asyncio.sleep(summary_s)
        return make_text_response(SUMMARY)

    waits: list[float] = []

    def on_event(event: CompactionEvent) -> None:
        if event.phase == "after" and event.outcome in ("compacted", "committed"):
            waits.append(event.waited_s if event.waited_s is not None else event.duration_s)

    transport = FunctionTransport(agent_model, model=WINDOW)
    store = AutoCompactStore(
        MemoryContextStore(),
        transport,
        keep_recent=4,
        summary_transport=FunctionTransport(summarizer, model=WINDOW),
        prepare_threshold=prepare,
        on_event=on_event,
    )
    agent = Agent("You are a careful agent.", transport)
    for turn in range(turns):
        await agent.run(f"step {turn}: " + "y" * 600, store)
    return waits


def row(label: str, waits: list[float]) -> str:
    if not waits:
        return f"| {label} | 0 | - | - |"
    p50 = statistics.median(waits) * 1000
    return f"| {label} | {len(waits)} | {p50:,.1f} ms | {max(waits) * 1000:,.1f} ms |"


async def main() -> None:
    quick = "--quick" in sys.argv
    scale = 0.1 if quick else 1.0
    options = {"turns": 150, "agent_s": 0.2 * scale, "summary_s": 2.0 * scale}
    started = time.monotonic()
    off = await run(None, **options)
    on = await run(0.6, **options)
    print(
        f"Stall at compaction: summarizer {options['summary_s']:.1f} s, agent model "
        f"{options['agent_s']:.2f} s a call, {options['turns']} turns, window "
        f"{WINDOW.context_window:,} tokens ({time.monotonic() - started:.0f} s)"
    )
    print()
    print("| preparation | compactions | caller waited, p50 | caller waited, max |")
    print("|---|---|---|---|")
    print(row("off (summarize at the limit)", off))
    print(row("on (prepare at 0.6, commit at 0.75)", on))


if __name__ == "__main__":
    asyncio.run(main())
