"""Compaction overhead, measured side by side in one run.

1. The non-LLM work of one compaction (split, sanitize, budget, validate, splice,
   replace) on 2,000 and 20,000-message histories, with a stub summarizer that
   answers instantly, next to the cost of merely copying the history once
   (``get_history``): the ratio says how many history copies one compaction costs.
2. The wrapper's overhead: ``AutoCompactStore(MemoryContextStore())`` vs a bare
   ``MemoryContextStore`` on 10,000 appends, (a) alone and (b) with a full history
   read every 50 appends; the window is set so large that no compaction runs.

3. The stall: how long the caller waits for a summary at the limit, background
   preparation off vs on, for ``AutoCompactStore`` and for the proxy (the tables of
   ``bench/stall.py``, one implementation: :func:`stall.report`).

Run: ``python bench/compaction.py`` (``--quick``: the stall tables with 10x shorter
delays). Prints markdown tables.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from contextfold import (
    AutoCompactStore,
    MemoryContextStore,
    Message,
    ModelInfo,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from contextfold.testing import FunctionTransport, make_text_response

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stall  # bench/stall.py, a neighbour of this script

# A window so large that the wrapper never compacts: we measure its bookkeeping only.
WINDOW = ModelInfo("bench-model", 1_000_000_000, 8_000)


def history(n: int) -> list[Message]:
    out: list[Message] = []
    i = 0
    while len(out) < n:
        out.append(Message.user(f"Please look at module_{i}.py and fix the failing test {i}."))
        out.append(
            Message(
                "assistant",
                [
                    TextBlock("Reading the file."),
                    ToolUseBlock(f"t{i}", "read_file", {"path": f"module_{i}.py"}),
                ],
            )
        )
        out.append(Message("user", [ToolResultBlock(f"t{i}", "def f():\n    return 1\n" * 20)]))
        out.append(Message.assistant(f"Fixed: the test {i} now passes."))
        i += 1
    return out[:n]


async def best_of(repeats: int, fn: Callable[[], Awaitable[object]]) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def compaction_overhead(n: int) -> tuple[float, float]:
    messages = history(n)
    summarizer = FunctionTransport(lambda request: make_text_response("## Current state\nok"))
    # Windows large enough that the whole old part is one summarizer request.
    summarizer._model = ModelInfo("bench-summarizer", 50_000_000, 8_000)

    async def one_compaction() -> None:
        inner = MemoryContextStore(messages)
        store = AutoCompactStore(inner, summarizer, keep_recent=20, max_tokens=190_000)
        assert await store.compact()

    async def copy_history() -> None:
        inner = MemoryContextStore(messages)
        await inner.get_history()

    repeats = 5 if n <= 2_000 else 3
    return await best_of(repeats, one_compaction), await best_of(repeats, copy_history)


async def wrapper_overhead(reads_every: int | None) -> tuple[float, float]:
    messages = history(10_000)
    transport = FunctionTransport(lambda request: make_text_response("x"), model=WINDOW)

    async def run(wrapped: bool) -> None:
        inner = MemoryContextStore()
        store = AutoCompactStore(inner, transport) if wrapped else inner
        for i, message in enumerate(messages):
            await store.append(message)
            if reads_every and i % reads_every == 0:
                await store.get_history()

    bare = await best_of(3, lambda: run(False))
    wrapped = await best_of(3, lambda: run(True))
    return wrapped, bare


async def main() -> None:
    print("| measurement | contextfold | baseline | ratio |")
    print("|---|---|---|---|")
    for n in (2_000, 20_000):
        ours, copy = await compaction_overhead(n)
        print(
            f"| one compaction, {n:,} messages (stub summarizer) vs one history copy "
            f"| {ours * 1e3:.1f} ms | {copy * 1e3:.1f} ms | {ours / copy:.1f}× |"
        )
    wrapped, bare = await wrapper_overhead(None)
    print(
        f"| 10,000 appends: AutoCompactStore(Memory) vs Memory "
        f"| {wrapped * 1e3:.1f} ms | {bare * 1e3:.1f} ms | {wrapped / bare:.2f}× |"
    )
    wrapped, bare = await wrapper_overhead(50)
    print(
        f"| 10,000 appends + a history read every 50 "
        f"| {wrapped * 1e3:.1f} ms | {bare * 1e3:.1f} ms | {wrapped / bare:.2f}× |"
    )
    print()
    for line in await stall.report("--quick" in sys.argv):
        print(line)


if __name__ == "__main__":
    asyncio.run(main())
