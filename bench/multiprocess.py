"""Many writers compacting one session: where every appended message ended up, counted.

    .venv/bin/python bench/multiprocess.py      # SQLite, plus PostgreSQL if reachable
    CONTEXTFOLD_BENCH_PG_DSN="host=... dbname=..." .venv/bin/python bench/multiprocess.py

Runs the scenario of ``tests/compaction/test_multiprocess.py`` (see
``tests/_shared_session.py``) and prints its numbers. Writers append agent rounds (a
question, a tool call, its result, an answer; 4 messages) to ONE session; compacting
writers wrap their store in ``AutoCompactStore`` with a 4,000-token window and a stub
summarizer, and report a usage over the limit every other round. Two shapes: 4
compacting processes plus 1 process appending through the bare store (38 rounds =
152 messages each), and 8 connections in one process (7 compacting, 1 bare; 19
rounds each), the latter also with single flight switched off, so that only the
compare-and-swap commit keeps overlapping compactions apart.

Columns: messages appended; *live* (in the live history exactly once); *summarized*
(left the live history and seen by a committed summary); *lost* (neither); duplicated;
history reads (each checked with ``validate_history`` in the OpenAI and Anthropic
dialects) and how many were invalid; compaction outcomes (compacted, conflict: the
commit found the history changed and wrote nothing; busy: another holder had the
session's compaction lock; failed: the attempt raised and changed nothing). Runs
offline, in under a minute on 2 cores.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests import _shared_session as shared  # noqa: E402  (needs the paths above)

PG_DSN = os.environ.get("CONTEXTFOLD_BENCH_PG_DSN", "host=127.0.0.1 user=postgres dbname=test")
ROUNDS = 38
ROWS: list[str] = []


async def _row(
    label: str, kind: str, target: str, sid: str, writers: int, rounds: int, counts: Any, logs: Any
) -> None:
    store, conn = await shared.open_store(kind, target, sid)
    try:
        verdict = await shared.account(store, writers, rounds, logs)
        if kind == "postgres":  # leave no bench session behind
            await conn.execute("DELETE FROM contextfold_archive WHERE session_id = %s", (sid,))
            await conn.execute("DELETE FROM contextfold_sessions WHERE session_id = %s", (sid,))
    finally:
        await conn.close()
    c: Counter[str] = counts
    ROWS.append(
        f"| {label} | {verdict.appended:,} | {verdict.live:,} | {verdict.summarized:,} | "
        f"{len(verdict.lost)} | {len(verdict.duplicated)} | {c['reads']} | "
        f"{c['invalid_reads']} | {c['compacted']} | {c['conflict']} | {c['busy']} | "
        f"{c['failed']} |"
    )


async def _scenarios(kind: str, target: str, name: str, tmp: Path) -> None:
    sid = f"bench-{uuid.uuid4().hex}"
    logdir = tmp / sid
    logdir.mkdir()
    counts = await shared.run_processes(kind, target, sid, ROUNDS, logdir)
    await _row(
        f"{name}: 4 compacting processes + 1 appender",
        kind,
        target,
        sid,
        5,
        ROUNDS,
        counts,
        shared.read_logs(logdir),
    )
    for single_flight in (True, False):
        sid = f"bench-{uuid.uuid4().hex}"
        counts, logs = await shared.run_connections(
            kind, target, sid, ROUNDS // 2, 8, single_flight=single_flight
        )
        label = "8 connections, one process" + ("" if single_flight else ", no single flight")
        await _row(f"{name}: {label}", kind, target, sid, 8, ROUNDS // 2, counts, logs)


async def main() -> None:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        await _scenarios("sqlite", str(Path(tmp) / "shared.db"), "SQLite", Path(tmp))
        try:
            from contextfold.stores.postgres import connect

            probe = await connect(PG_DSN, connect_timeout=3)
            await probe.close()
        except Exception as exc:  # any failure here only means "no PostgreSQL numbers"
            ROWS.append(f"| PostgreSQL: skipped, not reachable ({type(exc).__name__}) |")
        else:
            await _scenarios("postgres", PG_DSN, "PostgreSQL", Path(tmp))
    print(
        "| writers on one session | appended | live | summarized | lost | duplicated | "
        "reads | invalid reads | compacted | conflict | busy | failed |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(ROWS))
    print(f"\n_total bench time {time.perf_counter() - start:.0f} s, {os.cpu_count()} cores_")


if __name__ == "__main__":
    asyncio.run(main())
