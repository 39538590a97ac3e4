"""How long does the agent wait for a summary? Preparation off vs on, side by side.

1. ``AutoCompactStore``: a scripted agent whose model takes 0.2 s a call runs turns
   that each add about 1.5 % of a 20,000-token window, so usage crosses the compaction
   limit gradually, several times. The summarizer takes 2 s. For every compaction the
   table records how long the caller of ``add_context_tokens`` / ``get_history``
   actually waited: the whole summary when preparation is off, only the splice when a
   summary prepared in the background is ready.
2. The proxy (``contextfold.proxy`` in front of the fake upstream, both in process):
   several conversations, each resent whole every turn (a client that thinks 0.2 s
   between requests, ~270 tokens a turn, from just under the prepare point), cross the
   limit of a 32,768-token window; summaries take 2 s. The table records the added
   latency of each conversation's first request over the limit: the proxied request's
   time minus the same body sent straight to the upstream.

The caller's clock column is what the agent itself measured: around each store call
that committed a compaction (``get_history``, ``append``, ``add_context_tokens``), and
each whole turn less its model calls' own time (a commit
made in the background, or CPU work of a background summary holding the event loop,
shows there: a model call held up by it counts); the library's ``waited_s`` leaves out
whatever held the event loop meanwhile.

Run: ``python bench/stall.py`` (about 2 minutes; ``--quick`` shortens the delays 10x,
``--runs 5`` repeats the library's table five times and reports all runs together).
``bench/compaction.py`` prints the same tables (it calls :func:`report`).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from typing import Any

from contextfold import (
    Agent,
    AutoCompactStore,
    CompactionEvent,
    MemoryContextStore,
    ModelInfo,
)
from contextfold.compaction import CompactionSettings
from contextfold.proxy import ProxyOptions
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response

WINDOW = ModelInfo("bench-model", 20_000, 2_000)
SUMMARY = "<summary>\n## Current state\nWorking through the task list.\n</summary>"


async def run(
    prepare: float | None, *, turns: int, agent_s: float, summary_s: float
) -> tuple[list[float], list[float]]:
    """The seconds the agent waited at each compaction: as the library reports it
    (``waited_s``), and as the caller's own clock measured it: each store call that
    committed a compaction (``get_history``, ``append``, ``add_context_tokens``) and
    each turn, less the turn's model calls' own time."""

    in_model = [0.0]  # seconds the turn spent in the agent's model calls

    async def agent_model(request: StubRequest) -> StubResponse:
        # The model's own time is agent_s: a call that took longer was held up by work
        # on the event loop (a background summary's CPU), which the caller waited for.
        in_model[0] += agent_s
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
        on_event=on_event,
        settings=CompactionSettings(prepare_threshold=prepare),
    )
    clocked = _clock(store)
    agent = Agent("You are a careful agent.", transport)
    for turn in range(turns):
        in_model[0] = 0.0
        started = time.perf_counter()
        await agent.run(f"step {turn}: " + "y" * 600, store)
        # Every turn as the caller lived it, less its model calls: what the store (and
        # anything it left running on the event loop) cost the agent. A background
        # summary's CPU lands in whichever turn it arrives in, not only a commit's.
        clocked.append(time.perf_counter() - started - in_model[0])
    return waits, clocked


def _clock(store: AutoCompactStore) -> list[float]:
    """Time every call the agent makes on ``store`` with the caller's clock; the list
    returned gets the seconds of each call during which a compaction was committed."""
    measured: list[float] = []
    for name in ("get_history", "append", "add_context_tokens"):
        method = getattr(store, name)

        async def timed(*args: Any, _method: Any = method) -> Any:
            before = store.compactions
            started = time.perf_counter()
            try:
                return await _method(*args)
            finally:
                if store.compactions != before:
                    measured.append(time.perf_counter() - started)

        setattr(store, name, timed)
    return measured


def row(label: str, waits: tuple[list[float], list[float]]) -> str:
    reported, clocked = waits
    if not reported:
        return f"| {label} | 0 | - | - | - |"
    p50 = statistics.median(reported) * 1000
    caller = max(clocked, default=0.0) * 1000
    return (
        f"| {label} | {len(reported)} | {p50:,.1f} ms | {max(reported) * 1000:,.1f} ms "
        f"| {caller:,.1f} ms |"
    )


PROXY_WINDOW = 32_768
PROXY_MODEL = "bench-model"


async def proxy_run(
    prepare: float | None, *, conversations: int, think_s: float, summary_s: float
) -> list[float]:
    """The added seconds of each conversation's first request over the proxy's limit."""
    import httpx2

    from contextfold.proxy import create_app
    from contextfold_harness.fake_upstream import Upstream

    upstream = Upstream(summary_delay=summary_s)
    upstream_app = upstream.app()
    outbound = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=upstream_app))
    app = create_app(
        upstream_openai="http://upstream.test/v1",
        upstream_anthropic="http://upstream.test",
        http_client=outbound,
        context_window=PROXY_WINDOW,
        settings=CompactionSettings(prepare_threshold=prepare),
        options=ProxyOptions(summary_max_retries=0),
    )
    headers = {"authorization": "Bearer sk-bench"}
    added: list[float] = []
    async with (
        app.router.lifespan_context(app),
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), base_url="http://proxy.test"
        ) as proxy,
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=upstream_app), base_url="http://upstream.test"
        ) as direct,
    ):
        for conversation in range(conversations):
            history: list[dict[str, Any]] = [
                {"role": "system", "content": "You are a careful agent."},
                {"role": "user", "content": f"conversation {conversation}: work the list"},
            ]
            turn = 0
            while turn < 66:  # just under 0.6 of the window, as if it had grown so far
                turn = grow(history, conversation, turn)
            while turn < 400:
                body = {"model": PROXY_MODEL, "messages": history}
                started = time.perf_counter()
                reply = await proxy.post("/v1/chat/completions", json=body, headers=headers)
                proxied = time.perf_counter() - started
                if reply.headers.get("x-contextfold-compacted") == "true":
                    started = time.perf_counter()
                    await direct.post("/v1/chat/completions", json=body, headers=headers)
                    added.append(proxied - (time.perf_counter() - started))
                    break
                await asyncio.sleep(think_s)
                turn = grow(history, conversation, turn)
    await outbound.aclose()
    return added


def grow(history: list[dict[str, Any]], conversation: int, turn: int) -> int:
    """Append one turn (~270 tokens) to ``history``; the next turn's number."""
    history.append({"role": "assistant", "content": f"step {turn} done " + "a" * 200})
    history.append({"role": "user", "content": f"c{conversation} step {turn}: " + "u" * 800})
    return turn + 1


def proxy_row(label: str, added: list[float]) -> str:
    if not added:
        return f"| {label} | 0 | - | - |"
    p50 = statistics.median(added) * 1000
    return f"| {label} | {len(added)} | {p50:,.1f} ms | {max(added) * 1000:,.1f} ms |"


async def runs(
    prepare: float | None, count: int, **options: Any
) -> tuple[list[float], list[float]]:
    """:func:`run` ``count`` times, its measurements together."""
    reported: list[float] = []
    clocked: list[float] = []
    for _ in range(count):
        waits = await run(prepare, **options)
        reported += waits[0]
        clocked += waits[1]
    return reported, clocked


async def report(quick: bool = False, count: int = 1) -> list[str]:
    """Both stall tables, measured now (markdown lines); the library's over ``count``
    runs each."""
    scale = 0.1 if quick else 1.0
    options = {"turns": 150, "agent_s": 0.2 * scale, "summary_s": 2.0 * scale}
    started = time.monotonic()
    off = await runs(None, count, **options)
    on = await runs(0.6, count, **options)
    lines = [
        f"Stall at compaction: summarizer {options['summary_s']:.1f} s, agent model "
        f"{options['agent_s']:.2f} s a call, {options['turns']} turns, window "
        f"{WINDOW.context_window:,} tokens, {count} run(s) "
        f"({time.monotonic() - started:.0f} s)",
        "",
        "| preparation | compactions | waited_s, p50 | waited_s, max | the caller's clock, max |",
        "|---|---|---|---|---|",
        row("off (summarize at the limit)", off),
        row("on (prepare at 0.6, commit at 0.75)", on),
    ]
    proxy_options = {"conversations": 5, "think_s": 0.2 * scale, "summary_s": 2.0 * scale}
    started = time.monotonic()
    proxy_off = await proxy_run(None, **proxy_options)
    proxy_on = await proxy_run(0.6, **proxy_options)
    lines += [
        "",
        f"Proxy stall: the first request over the limit, summarizer "
        f"{proxy_options['summary_s']:.1f} s, client {proxy_options['think_s']:.2f} s "
        f"between requests, window {PROXY_WINDOW:,} tokens ({time.monotonic() - started:.0f} s)",
        "",
        "| proxy preparation | conversations | added latency, p50 | added latency, max |",
        "|---|---|---|---|",
        proxy_row("off (summarize at the limit)", proxy_off),
        proxy_row("on (prepare at 0.6, splice at 0.75)", proxy_on),
    ]
    return lines


async def main() -> None:
    count = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 1
    for line in await report("--quick" in sys.argv, count):
        print(line)


if __name__ == "__main__":
    asyncio.run(main())
