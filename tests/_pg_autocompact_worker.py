"""Child process: a real AutoCompactStore over one shared PostgreSQL session.

``python -m tests._pg_autocompact_worker DSN SESSION WORKER COUNT`` appends COUNT user
messages ``w<WORKER>-<i>`` through ``AutoCompactStore(PostgresContextStore)`` and
every 8 appends reports a usage over the limit, so every process keeps trying to
compact the session while the others append. The summarizer takes a moment, so
appends from other processes land during summarization. Prints the outcomes seen.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter

from contextfold import AutoCompactStore, CompactionEvent, Message, ModelInfo
from contextfold.postgres import PostgresContextStore, connect
from contextfold.testing import FunctionTransport, StubRequest, StubResponse, make_text_response


async def _main(dsn: str, session_id: str, worker: str, count: int) -> None:
    async def summarize(request: StubRequest) -> StubResponse:
        await asyncio.sleep(0.05)
        return make_text_response(f"## Current state\nsummary by w{worker}")

    outcomes: Counter[str] = Counter()

    def record(event: CompactionEvent) -> None:
        if event.phase == "after" and event.outcome:
            outcomes[event.outcome] += 1

    conn = await connect(dsn)
    model = FunctionTransport(summarize, model=ModelInfo("m", 4_000, 500))
    store = AutoCompactStore(
        PostgresContextStore(conn, session_id),
        model,
        keep_recent=6,
        on_event=record,
        proactive=False,
        max_backoff=0,
    )
    for i in range(count):
        await store.append(Message.user(f"w{worker}-{i}"))
        if i % 8 == 7:
            await store.add_context_tokens(3_900 + i, 1)
    print(" ".join(f"{k}={v}" for k, v in sorted(outcomes.items())), flush=True)
    await conn.close()


if __name__ == "__main__":
    asyncio.run(_main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
