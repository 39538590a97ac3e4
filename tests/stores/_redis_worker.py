"""Child process for the Redis tests: one process of several sharing a session.

``python -m tests.stores._redis_worker URL PREFIX SESSION MODE [ARGS...]``:

* ``compact WORKER ROUNDS``: appends ROUNDS tool-using rounds (``w<WORKER>-<i> ...``)
  through ``AutoCompactStore(RedisContextStore)``. A round is appended whole under a
  cross-process turn lock (as an agent runtime serialising turns would), and every
  other round reports a growing usage over the limit, so every process keeps compacting the
  session while the others append. The summarizer takes a moment, so rounds from
  other processes land during summarization. Prints the outcomes seen as JSON.
* ``hold LEASE``: takes the session's compaction lock with a lease of LEASE seconds,
  prints ``held`` and waits forever (the parent kills it).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter

from redis.asyncio import Redis

from contextfold import AutoCompactStore, CompactionEvent, Message, ModelInfo
from contextfold.blocks import TextBlock, ToolResultBlock, ToolUseBlock
from contextfold.compaction import CompactionSettings
from contextfold.stores.redis import RedisContextStore
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response


def round_messages(worker: int, i: int) -> list[Message]:
    """One agent round: question, tool call, tool result, answer."""
    tool_id = f"w{worker}-{i}-call"
    return [
        Message.user(f"w{worker}-{i} question"),
        Message(
            "assistant",
            [TextBlock(f"w{worker}-{i} calling"), ToolUseBlock(tool_id, "read", {"i": i})],
        ),
        Message("user", [ToolResultBlock(tool_id, f"w{worker}-{i} result " + "x" * 40)]),
        Message.assistant(f"w{worker}-{i} answer"),
    ]


async def _compact(client: Redis, prefix: str, session_id: str, worker: int, rounds: int) -> None:
    async def summarize(request: StubRequest) -> StubResponse:
        await asyncio.sleep(0.05)
        return make_text_response(f"## Current state\nsummary by w{worker}")

    outcomes: Counter[str] = Counter()

    def record(event: CompactionEvent) -> None:
        if event.phase == "after" and event.outcome:
            outcomes[event.outcome] += 1

    model = FunctionTransport(summarize, model=ModelInfo("m", 4_000, 500))
    store = AutoCompactStore(
        RedisContextStore(client, session_id, prefix=prefix, lease=5.0),
        model,
        keep_recent=6,
        on_event=record,
        settings=CompactionSettings(proactive=False, max_backoff=0),
    )
    turn = client.lock(f"{prefix}:test-turn:{session_id}", timeout=30, blocking_timeout=60)
    for i in range(rounds):
        async with turn:
            for message in round_messages(worker, i):
                await store.append(message)
        if i % 2 == 1:
            await store.add_context_tokens(3_900 + 250 * i, 1)
    print(json.dumps(dict(outcomes)), flush=True)


async def _hold(client: Redis, prefix: str, session_id: str, lease: float) -> None:
    store = RedisContextStore(client, session_id, prefix=prefix, lease=lease)
    async with store.compaction_lock() as acquired:
        print("held" if acquired else "busy", flush=True)
        await asyncio.Event().wait()


async def _main(url: str, prefix: str, session_id: str, mode: str, *args: str) -> None:
    client = Redis.from_url(url)
    try:
        if mode == "compact":
            await _compact(client, prefix, session_id, int(args[0]), int(args[1]))
        else:
            await _hold(client, prefix, session_id, float(args[0]))
    finally:
        await client.aclose()


if __name__ == "__main__":
    asyncio.run(_main(*sys.argv[1:]))
