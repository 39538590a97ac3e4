"""How long does a compaction hold the event loop? The fact ledger on it vs on a thread.

A compaction's own CPU (reading the fact ledger out of the summarized part, checking
the summary against it) runs while other work waits on the same event loop: the
proxy's other requests, an agent's next model call, a store's heartbeat. Every face
reads a long session's ledger on a worker thread (``compact_history``'s ``off_loop``:
the proxy always, the store and the manager past ``LEDGER_INLINE_CHARS`` characters);
``off_loop=False`` reads it on the loop, as the store and the manager did before. Nine
generated long sessions (coding, support and research, seeds 0-2, 130-170 KB each) are
compacted by ``compact_history`` with a summarizer that answers in 50 ms, while a
ticker on the same loop sleeps 1 ms at a time; the table records the longest gap it
saw (what a concurrent request would have waited) and the CPU of the compaction (with
the ticker, and alone: the thread's hand-offs of the interpreter lock cost some),
side by side in one run. Then two histories of prose dense with ids (4-5 times the
ledger's cost a character), one just under ``LEDGER_INLINE_CHARS`` (read on the loop
by size: what the size rule still lets through) and one past it.

Run: ``python bench/loop_lag.py`` (about 25 seconds; ``--runs N`` repeats each row).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from contextfold.compaction import CompactionSettings
from contextfold.compaction._engine import compact_history, ledger_chars
from contextfold.messages import Message
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response
from contextfold_harness.fidelity import generate

SESSIONS = [(kind, seed) for kind in ("coding", "support", "research") for seed in range(3)]


def summarizer() -> FunctionTransport:
    async def reply(request: StubRequest) -> StubResponse:
        await asyncio.sleep(0.05)  # a model takes a while to answer
        return make_text_response("<summary>\n## Current state\nWorking on the task.\n</summary>")

    return FunctionTransport(reply)


async def compaction(history: list[Message], off_loop: bool | None) -> tuple[float, float, float]:
    """The longest gap a 1 ms ticker saw while ``history`` was compacted, the
    compaction's CPU seconds then (the ticker's own included), and alone."""
    opts = CompactionSettings(keep_recent=4, user_message_budget=0).options()
    alone = time.process_time()
    await compact_history(history, summarizer(), opts, require_smaller=False, off_loop=off_loop)
    alone = time.process_time() - alone
    gaps: list[float] = []
    running = True

    async def tick() -> None:
        last = time.perf_counter()
        while running:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.01)
    cpu = time.process_time()
    await compact_history(history, summarizer(), opts, require_smaller=False, off_loop=off_loop)
    cpu = time.process_time() - cpu
    running = False
    await ticker
    return max(gaps), cpu, alone


async def measure(runs: int) -> list[str]:
    histories = []
    for kind, seed in SESSIONS:
        session = generate(kind, seed, segments=10)
        histories.append([*session.opening, *(m for part in session.segments for m in part)])
    chars = [sum(len(str(m)) for m in h) for h in histories]
    rows: dict[str, tuple[list[float], list[float], list[float]]] = {}
    for _ in range(runs):
        for where, off_loop in (
            ("on the event loop (`off_loop=False`; the store and manager before)", False),
            ("by size (the default: store, manager)", None),
            ("on a thread (`off_loop=True`: the proxy)", True),
        ):
            for history in histories:
                measured = await compaction(history, off_loop)
                for figures, figure in zip(
                    rows.setdefault(where, ([], [], [])), measured, strict=True
                ):
                    figures.append(figure)
    # Prose dense with ids costs the ledger 4-5 times more a character: just under the
    # inline size, and past it.
    dense = "order 12345 costs 67.89 EUR, ticket #4521, PR 77, v1.2.3, port 8080, 3 GB. "
    pad = (dense * 7)[:480]
    for count in (24, 44):
        history = [
            Message.user(pad) if i % 2 == 0 else Message.assistant(pad) for i in range(count)
        ]
        label = f"{ledger_chars(history[:-4]):,} characters of dense prose"
        for _ in range(runs):
            for where, off_loop in (("on the event loop", False), ("by size (the default)", None)):
                measured = await compaction(history, off_loop)
                for figures, figure in zip(
                    rows.setdefault(f"{label}: {where}", ([], [], [])), measured, strict=True
                ):
                    figures.append(figure)
    lines = [
        f"Nine sessions of {min(chars) // 1000}-{max(chars) // 1000} KB, then two of "
        f"prose dense with ids, {runs} run(s) each; the ticker's longest gap and the "
        "compaction's CPU:",
        "",
        "| fact ledger built | compactions | longest gap p50 | longest gap max "
        "| CPU p50, ticking | CPU p50, alone |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for where, (lags, cpus, alone) in rows.items():
        lines.append(
            f"| {where} | {len(lags)} | {statistics.median(lags) * 1e3:.1f} ms "
            f"| {max(lags) * 1e3:.1f} ms | {statistics.median(cpus) * 1e3:.0f} ms "
            f"| {statistics.median(alone) * 1e3:.0f} ms |"
        )
    return lines


def main() -> int:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 1
    print("\n".join(asyncio.run(measure(runs))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
