"""Compaction of one session shared by many connections and processes loses nothing.

The scenario is :mod:`tests._shared_session`: writers append agent rounds while
compacting writers keep compacting the same session. Afterwards every appended message
is in the live history exactly once or was seen by a committed summary, no history read
was invalid in either dialect, and the transcript holds every message exactly once.
Runs on SQLite (processes on one file; connections in one process) and PostgreSQL.
"""

from __future__ import annotations

import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg
import pytest

from contextfold import Message, PrefixReplacing
from contextfold.postgres import PostgresContextStore
from contextfold.sqlite import SQLiteContextStore
from contextfold.validation import validate_history
from tests import _shared_session as shared
from tests._stores import PG_DSN
from tests.stores.test_postgres import pg  # noqa: F401  (pg is a fixture)

ROUNDS = 38  # 152 messages per writer


async def _drop(conn: psycopg.AsyncConnection[Any], sid: str) -> None:
    """Delete a test session (its rows go with it, by the foreign keys)."""
    await conn.execute("DELETE FROM contextfold_archive WHERE session_id = %s", (sid,))
    await conn.execute("DELETE FROM contextfold_sessions WHERE session_id = %s", (sid,))


async def _account(store: Any, writers: int, rounds: int, counts: Counter[str], logs: Any) -> None:
    verdict = await shared.account(store, writers, rounds, logs)
    summary = (
        f"appended={verdict.appended} live={verdict.live} summarized={verdict.summarized} "
        f"lost={len(verdict.lost)} duplicated={len(verdict.duplicated)} counts={dict(counts)}"
    )
    assert verdict.lost == [], summary
    assert verdict.duplicated == [], summary
    assert counts.get("invalid_reads", 0) == 0, summary
    assert verdict.invalid_final == [], summary
    assert counts["appended"] == verdict.appended, summary
    assert counts.get("compacted", 0) >= 3, summary
    assert "failed" not in counts, summary
    assert verdict.live + verdict.summarized == verdict.appended
    validate_history(await store.get_history())


async def test_four_processes_and_an_appender_on_one_sqlite_file_lose_nothing(
    tmp_path: Path,
) -> None:
    path, sid = tmp_path / "shared.db", "shared"
    counts = await shared.run_processes("sqlite", str(path), sid, ROUNDS, tmp_path)
    store, conn = await shared.open_store("sqlite", str(path), sid)
    try:
        await _account(store, 5, ROUNDS, counts, shared.read_logs(tmp_path))
    finally:
        await conn.close()


# Without single flight, compactions overlap and only the compare-and-swap commit
# keeps them from replacing what another one already rewrote.
SINGLE_FLIGHT = pytest.mark.parametrize(
    "single_flight", [True, False], ids=["single-flight", "overlapping-compactions"]
)


@SINGLE_FLIGHT
async def test_eight_connections_in_one_process_on_one_sqlite_file_lose_nothing(
    tmp_path: Path, single_flight: bool
) -> None:
    path, sid = tmp_path / "shared.db", "shared"
    counts, logs = await shared.run_connections(
        "sqlite", str(path), sid, ROUNDS // 2, 8, single_flight=single_flight
    )
    store, conn = await shared.open_store("sqlite", str(path), sid)
    try:
        assert isinstance(store, SQLiteContextStore)
        await _account(store, 8, ROUNDS // 2, counts, logs)
    finally:
        await conn.close()


async def test_four_processes_and_an_appender_on_one_postgres_session_lose_nothing(
    pg: psycopg.AsyncConnection[Any],  # noqa: F811
    tmp_path: Path,
) -> None:
    sid = f"test-{uuid.uuid4().hex}"
    try:
        counts = await shared.run_processes("postgres", PG_DSN, sid, ROUNDS, tmp_path)
        await _account(PostgresContextStore(pg, sid), 5, ROUNDS, counts, shared.read_logs(tmp_path))
    finally:
        await _drop(pg, sid)


@SINGLE_FLIGHT
async def test_eight_connections_in_one_process_on_one_postgres_session_lose_nothing(
    pg: psycopg.AsyncConnection[Any],  # noqa: F811
    single_flight: bool,
) -> None:
    sid = f"test-{uuid.uuid4().hex}"
    try:
        counts, logs = await shared.run_connections(
            "postgres", PG_DSN, sid, ROUNDS // 2, 8, single_flight=single_flight
        )
        await _account(PostgresContextStore(pg, sid), 8, ROUNDS // 2, counts, logs)
    finally:
        await _drop(pg, sid)


# --- the commit is a compare-and-swap ---------------------------------------------------


async def _rival_commits_first(kind: str, target: str, sid: str) -> None:
    """Another compactor's commit lands between the splice's read and its write.

    The store under compaction runs the rival's commit (through its own connection)
    as its commit starts, whichever commit method the splice calls. The compaction
    must end as ``conflict`` and leave the rival's history exactly as it was.
    """
    history = [  # long enough that a summary is smaller than what it replaces
        Message.user(f"q{i} " + "u" * 200)
        if i % 2 == 0
        else Message.assistant(f"a{i} " + "a" * 200)
        for i in range(20)
    ]
    rival, rival_conn = await shared.open_store(kind, target, sid)
    rivals_summary = [Message.user("rival summary of q0..a7"), Message.assistant("ok")]

    async def rival_commit(self: Any) -> None:
        if not self.raced:
            self.raced = True
            assert isinstance(rival, PrefixReplacing)
            await rival.replace_prefix(8, rivals_summary)

    async def replace_snapshot(self: Any, snapshot: Any, messages: Any) -> bool:
        await rival_commit(self)
        return bool(await super(racing, self).replace_snapshot(snapshot, messages))

    async def replace_prefix(self: Any, count: int, messages: Any) -> Any:
        await rival_commit(self)
        return await super(racing, self).replace_prefix(count, messages)

    own, conn = await shared.open_store(kind, target, sid)
    base = type(own)
    racing = type("Racing", (base,), {"replace_snapshot": replace_snapshot})
    racing.replace_prefix = replace_prefix  # type: ignore[attr-defined]
    store = racing(conn, sid)
    store.raced = False
    try:
        await store.replace_history(history)
        outcomes: Counter[str] = Counter()
        auto = shared.compacting(store, shared.SummaryLog(delay=0), outcomes)
        assert await auto.compact() is False
        assert outcomes == Counter({"conflict": 1})
        assert await store.get_history() == [*rivals_summary, *history[8:]]
        archived = [a.message for a in await store.get_archive()]
        assert archived == history[:8]  # only the rival's commit archived anything
        assert len(await store.get_compactions()) == 1  # the rival's
    finally:
        await conn.close()
        await rival_conn.close()


async def test_a_commit_racing_another_connections_commit_ends_as_conflict_on_sqlite(
    tmp_path: Path,
) -> None:
    await _rival_commits_first("sqlite", str(tmp_path / "race.db"), "s")


async def test_a_commit_racing_another_connections_commit_ends_as_conflict_on_postgres(
    pg: psycopg.AsyncConnection[Any],  # noqa: F811
) -> None:
    sid = f"test-{uuid.uuid4().hex}"
    try:
        await _rival_commits_first("postgres", PG_DSN, sid)
    finally:
        await _drop(pg, sid)
