"""AutoCompactStore shared by four processes on one PostgreSQL session.

Each process appends and keeps triggering compaction; the advisory lock makes each
compaction single-flight across processes and ``replace_prefix`` keeps what others
appended during a summary. Afterwards nothing is lost or duplicated.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg

from contextfold.postgres import PostgresContextStore
from contextfold.validation import validate_history
from tests._stores import PG_DSN
from tests.test_postgres import _spawn, pg  # noqa: F401  (pg is a fixture)


async def test_four_processes_compacting_one_session_lose_and_duplicate_nothing(
    pg: psycopg.AsyncConnection[Any],  # noqa: F811
) -> None:
    sid, per_worker = f"test-{uuid.uuid4().hex}", 48
    workers = [
        _spawn("tests._pg_autocompact_worker", PG_DSN, sid, str(w), str(per_worker))
        for w in range(4)
    ]
    outputs = await asyncio.gather(*(asyncio.to_thread(w.communicate) for w in workers))
    assert [w.returncode for w in workers] == [0, 0, 0, 0]
    outcomes: dict[str, int] = {}
    for out, _ in outputs:
        for pair in out.split():
            key, value = pair.split("=")
            outcomes[key] = outcomes.get(key, 0) + int(value)
    assert outcomes.get("compacted", 0) >= 2
    assert "failed" not in outcomes

    store = PostgresContextStore(pg, sid)
    history = await store.get_history()
    validate_history(history)
    assert "summary by w" in history[0].text
    expected = {f"w{w}-{i}" for w in range(4) for i in range(per_worker)}
    transcript = [m.text for m in await store.get_full_transcript()]
    assert sorted(transcript) == sorted(expected)  # every message exactly once
    for w in range(4):  # and each process's messages in its own order
        mine = [t for t in transcript if t.startswith(f"w{w}-")]
        assert mine == [f"w{w}-{i}" for i in range(per_worker)]
    live = [m.text for m in history if m.text.startswith("w")]
    archived = {a.message.text for a in await store.get_archive() if not a.synthetic}
    assert len(live) == len(set(live))
    assert archived.isdisjoint(live)
    assert archived | set(live) == expected
    assert len(await store.get_compactions()) == outcomes["compacted"]
