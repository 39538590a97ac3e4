"""Child process for the multi-process PostgreSQL test.

``python -m tests.stores._pg_worker DSN SESSION WORKER COUNT`` appends COUNT user messages
``w<WORKER>-<i>`` to one session and, every few appends, tries to compact it under
``compaction_lock()``: keep the last 6 messages, replace the older ones by a summary
pair with ``replace_prefix`` (so appends by other processes meanwhile are kept).
Prints ``compactions <n>`` when done.
"""

from __future__ import annotations

import asyncio
import sys

from contextfold.messages import Message
from contextfold.stores.postgres import PostgresContextStore, connect

KEEP = 6


async def _main(dsn: str, session_id: str, worker: str, count: int) -> None:
    conn = await connect(dsn)
    store = PostgresContextStore(conn, session_id)
    compactions = 0
    for i in range(count):
        await store.append(Message.user(f"w{worker}-{i}"))
        if i % 10 != 9:
            continue
        async with store.compaction_lock() as held:
            if not held:
                continue
            snapshot = await store.get_history()
            if len(snapshot) <= 2 * KEEP:
                continue
            await asyncio.sleep(0.05)  # the "summarizer" runs while others append
            summary = [
                Message.user(f"summary by w{worker} of {len(snapshot) - KEEP} messages"),
                Message.assistant("noted, continuing"),
            ]
            await store.replace_prefix(len(snapshot) - KEEP, summary)
            compactions += 1
    print(f"compactions {compactions}", flush=True)
    await conn.close()


if __name__ == "__main__":
    asyncio.run(_main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
