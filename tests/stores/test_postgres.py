"""PostgreSQL store beyond the shared contract: pools, cross-process safety, errors, crashes.

Every test needs the server; without it they skip (fail under
``CONTEXTFOLD_REQUIRE_SERVICES=1``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from contextfold import Message, TextBlock, ToolUseBlock
from contextfold.errors import CorruptRecordError, SchemaVersionError, StoreError
from contextfold.stores.postgres import (
    SCHEMA_VERSION,
    PostgresContextStore,
    _Driver,
    advisory_key,
    connect,
    ensure_schema,
)
from contextfold.validation import validate_history
from tests._stores import PG_DSN, PG_SCHEMA, pg_connection_or_skip, pg_dsn
from tests.conftest import require_service
from tests.stores._crash_helper import new_history, old_history

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def pg() -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    conn = await pg_connection_or_skip(require_service)
    await ensure_schema(conn)
    yield conn
    await conn.close()


@pytest.fixture
async def pool(pg: psycopg.AsyncConnection[Any]) -> AsyncIterator[AsyncConnectionPool[Any]]:
    async with AsyncConnectionPool(PG_DSN, min_size=2, max_size=6, open=False) as p:
        yield p


def _sid() -> str:
    return f"test-{uuid.uuid4().hex}"


async def test_pool_concurrent_appends_get_distinct_sequence_numbers(
    pool: AsyncConnectionPool[Any],
) -> None:
    store = PostgresContextStore(pool, _sid())
    await asyncio.gather(*(store.append(Message.user(f"m{i}")) for i in range(60)))
    history = await store.get_history()
    assert sorted(m.text for m in history) == sorted(f"m{i}" for i in range(60))
    async with pool.connection() as conn:
        cur = await conn.execute(
            "SELECT seq FROM contextfold_messages WHERE session_id = %s ORDER BY seq",
            (store.session_id,),
        )
        assert [r[0] for r in await cur.fetchall()] == list(range(60))


async def _append_until(store: PostgresContextStore, stop: asyncio.Event, tag: str) -> None:
    i = 0
    while not stop.is_set():
        await store.append(Message.user(f"{tag}-{i}"))
        i += 1


async def test_fork_under_concurrent_appends_is_a_consistent_prefix(
    pool: AsyncConnectionPool[Any],
) -> None:
    # Regression: fork copied the session row and the messages in separate statements,
    # so an append committing in between left the fork with a row numbered at or past
    # its next_seq and its first append failed with a duplicate key.
    for _ in range(8):
        source = PostgresContextStore(pool, _sid())
        for i in range(3):
            await source.append(Message.user(f"m{i}"))
        stop = asyncio.Event()

        tasks = [asyncio.create_task(_append_until(source, stop, f"w{w}")) for w in range(3)]
        await asyncio.sleep(0.01)
        forks = [await source.fork() for _ in range(6)]
        stop.set()
        await asyncio.gather(*tasks)
        final = await source.get_history()
        for forked in forks:
            copied = await forked.get_history()
            assert copied == final[: len(copied)]
            await forked.append(Message.assistant("after fork"))
            assert await forked.get_history() == [*copied, Message.assistant("after fork")]


async def test_session_survives_new_connections(pg: psycopg.AsyncConnection[Any]) -> None:
    sid = _sid()
    call = Message("assistant", [TextBlock("looking"), ToolUseBlock("t1", "grep", {"q": "x"})])
    await PostgresContextStore(pg, sid).append(call)
    await PostgresContextStore(pg, sid).add_context_tokens(500, 5)
    other = await connect(PG_DSN)
    try:
        store = PostgresContextStore(other, sid)
        assert await store.get_history() == [call]
        assert await store.get_context_tokens() == (500, 5)
    finally:
        await other.close()


async def test_archive_and_full_transcript(pg: psycopg.AsyncConnection[Any]) -> None:
    store = PostgresContextStore(pg, _sid())
    turns = [Message.user(f"q{i}") if i % 2 == 0 else Message.assistant(f"a{i}") for i in range(8)]
    for m in turns:
        await store.append(m)
    await store.replace_history([Message.user("summary"), Message.assistant("ok"), *turns[4:]])
    assert [a.message for a in await store.get_archive()] == turns[:4]
    assert await store.get_full_transcript() == turns
    [record] = await store.get_compactions()
    assert (record.messages_before, record.messages_after, record.archived) == (8, 6, 4)
    forked = await store.fork()
    assert await forked.get_full_transcript() == turns
    assert len(await forked.get_compactions()) == 1


async def test_replace_history_that_extends_the_history_appends(
    pg: psycopg.AsyncConnection[Any],
) -> None:
    store = PostgresContextStore(pg, _sid())
    turns = [Message.user("q0"), Message.assistant("a1"), Message.user("q2")]
    for m in turns[:2]:
        await store.append(m)
    await store.replace_history(turns)
    assert await store.get_full_transcript() == turns
    assert await store.replace_prefix(3, turns) is None
    assert await store.get_compactions() == []
    assert await store.get_archive() == []


async def test_compaction_lock_excludes_other_connections(
    pg: psycopg.AsyncConnection[Any], pool: AsyncConnectionPool[Any]
) -> None:
    sid = _sid()
    on_conn, on_pool = PostgresContextStore(pg, sid), PostgresContextStore(pool, sid)
    async with on_conn.compaction_lock() as held:
        assert held
        async with on_pool.compaction_lock() as other:  # another connection, as another process
            assert not other
        async with on_conn.compaction_lock() as same_process:
            assert not same_process
    async with on_pool.compaction_lock() as after:
        assert after
        cur = await pg.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %s",
            (advisory_key(sid) & 0xFFFFFFFF,),
        )
        assert (await cur.fetchone()) == (1,)


async def _lock_is_free(sid: str) -> bool:
    """Whether another connection (as another process would) can take ``sid``'s lock."""
    async with await psycopg.AsyncConnection.connect(PG_DSN, autocommit=True) as other:
        cur = await other.execute("SELECT pg_try_advisory_lock(%s)", (advisory_key(sid),))
        row = await cur.fetchone()
        free = bool(row and row[0])
        if free:
            await other.execute("SELECT pg_advisory_unlock(%s)", (advisory_key(sid),))
        return free


async def test_a_compaction_cancelled_while_its_release_waits_for_the_connection_unlocks(
    pg: psycopg.AsyncConnection[Any],
) -> None:
    # On a shared connection the release waits its turn for the connection; here it is
    # busy with an append blocked on a row lock another process holds. A cancellation
    # of the compaction at that moment must not skip the unlock: an advisory lock left
    # on a shared connection blocks that session's compaction everywhere until it closes.
    sid, busy_sid = _sid(), _sid()
    store, neighbour = PostgresContextStore(pg, sid), PostgresContextStore(pg, busy_sid)
    await neighbour.append(Message.user("q0"))
    leave = asyncio.Event()

    async def compact() -> None:
        async with store.compaction_lock() as held:
            assert held
            await leave.wait()

    task = asyncio.create_task(compact())
    async with await psycopg.AsyncConnection.connect(PG_DSN) as locker:
        await locker.execute(
            "SELECT 1 FROM contextfold_sessions WHERE session_id = %s FOR UPDATE", (busy_sid,)
        )
        await asyncio.sleep(0.2)
        assert not await _lock_is_free(sid)
        blocked = asyncio.create_task(neighbour.append(Message.assistant("a1")))
        await asyncio.sleep(0.2)  # the append holds the shared connection, waiting on the row
        leave.set()
        await asyncio.sleep(0.2)  # the compaction's release waits for the connection
        task.cancel()
        await asyncio.sleep(0.2)
        await locker.commit()
    await blocked
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert await _lock_is_free(sid)
    assert pg.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


@pytest.mark.parametrize("target", ["connection", "pool"])
async def test_a_compaction_cancelled_at_any_step_leaves_no_lock_and_no_transaction(
    pg: psycopg.AsyncConnection[Any], pool: AsyncConnectionPool[Any], target: str
) -> None:
    # Cancelled after 0, 1, 2, ... turns of the event loop: while borrowing the
    # connection, while pg_try_advisory_lock is on the wire (the server may take the
    # lock though the reply never arrives), inside the block, and while unlocking.
    sid = _sid()
    store = PostgresContextStore(pg if target == "connection" else pool, sid)
    async with store.compaction_lock() as held:  # the schema and the connections are warm
        assert held
    for turns in range(40):

        async def compact() -> None:
            async with store.compaction_lock():
                await asyncio.sleep(0)

        task = asyncio.create_task(compact())
        for _ in range(turns):
            await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert await _lock_is_free(sid), f"the lock was left held after {turns} turns"
        assert pg.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    async with store.compaction_lock() as held:
        assert held


_HOLDER = """
import asyncio, sys
from contextfold.stores.postgres import PostgresContextStore, connect

async def main():
    conn = await connect(sys.argv[1])
    try:
        async with PostgresContextStore(conn, sys.argv[2]).compaction_lock() as held:
            print("held" if held else "busy", flush=True)
            await asyncio.Event().wait()
    finally:
        await conn.close()

asyncio.run(main())
"""


def _start_holder(sid: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _HOLDER, PG_DSN, sid], stdout=subprocess.PIPE, text=True
    )


async def test_compaction_lock_of_a_killed_process_is_released(
    pg: psycopg.AsyncConnection[Any],
) -> None:
    sid = _sid()
    child = _start_holder(sid)
    assert child.stdout is not None
    try:
        first_line = await asyncio.wait_for(asyncio.to_thread(child.stdout.readline), 60)
        assert first_line.strip() == "held"
        async with PostgresContextStore(pg, sid).compaction_lock() as held:
            assert not held  # the live process holds it
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    store = PostgresContextStore(pg, sid)
    for _ in range(300):  # the server ends the dead client's session and its locks
        async with store.compaction_lock() as held:
            if held:
                break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the advisory lock of a killed process was never released")


async def test_corrupt_row_names_session_and_row(pg: psycopg.AsyncConnection[Any]) -> None:
    store = PostgresContextStore(pg, _sid())
    await store.append(Message.user("ok"))
    await pg.execute(
        'UPDATE contextfold_messages SET content = \'[{"type": "nope"}]\' WHERE session_id = %s',
        (store.session_id,),
    )
    with pytest.raises(CorruptRecordError, match=rf"session '{store.session_id}'.*seq=0"):
        await store.get_history()


async def test_newer_schema_is_refused(pg: psycopg.AsyncConnection[Any]) -> None:
    schema = f"cf_future_{uuid.uuid4().hex[:8]}"
    await pg.execute(f"CREATE SCHEMA {schema}")
    dsn = pg_dsn(schema)
    try:
        first = await connect(dsn)
        await first.execute("UPDATE contextfold_meta SET value = '7' WHERE key = 'schema_version'")
        await first.close()
        with pytest.raises(SchemaVersionError, match="schema version 7"):
            await connect(dsn)
    finally:
        await pg.execute(f"DROP SCHEMA {schema} CASCADE")


async def test_version_1_database_is_upgraded_in_place(pg: psycopg.AsyncConnection[Any]) -> None:
    # Version 1 kept content in jsonb, which refuses NUL; version 2 keeps JSON text.
    schema = f"cf_v1_{uuid.uuid4().hex[:8]}"
    await pg.execute(f"CREATE SCHEMA {schema}")
    dsn = pg_dsn(schema)
    call = Message("assistant", [ToolUseBlock("t1", "grep", {"q": "x"})])
    try:
        old = await connect(dsn)
        store = PostgresContextStore(old, "kept")
        for m in (Message.user("q0"), call, Message.user("q2")):
            await store.append(m)
        await store.replace_history([Message.user("summary"), Message.user("q2")])
        for table in ("contextfold_messages", "contextfold_archive"):
            await old.execute(
                f"ALTER TABLE {table} ALTER COLUMN content TYPE JSONB USING content::jsonb"
            )
        await old.execute("UPDATE contextfold_meta SET value = '1' WHERE key = 'schema_version'")
        await old.close()

        upgraded = await connect(dsn)
        try:
            cur = await upgraded.execute(
                "SELECT table_name, data_type FROM information_schema.columns WHERE "
                "table_schema = %s AND column_name = 'content' ORDER BY table_name",
                (schema,),
            )
            assert await cur.fetchall() == [
                ("contextfold_archive", "text"),
                ("contextfold_messages", "text"),
            ]
            cur = await upgraded.execute("SELECT value FROM contextfold_meta")
            assert await cur.fetchall() == [(str(SCHEMA_VERSION),)]
            store = PostgresContextStore(upgraded, "kept")
            assert await store.get_history() == [Message.user("summary"), Message.user("q2")]
            assert await store.get_full_transcript() == [
                Message.user("q0"),
                call,
                Message.user("q2"),
            ]
            await store.append(Message.user("nul \x00 now fits"))
            assert (await store.get_history())[-1] == Message.user("nul \x00 now fits")
        finally:
            await upgraded.close()
    finally:
        await pg.execute(f"DROP SCHEMA {schema} CASCADE")


async def test_values_the_server_refuses_raise_store_error(
    pg: psycopg.AsyncConnection[Any],
) -> None:
    # The boundary behind the stores' own validation: no psycopg exception escapes.
    driver = _Driver(pg)
    with pytest.raises(StoreError, match="PostgreSQL refused a value") as info:
        await driver.fetch("SELECT ?::bigint", ("not a number",))
    assert isinstance(info.value.__cause__, psycopg.DataError)
    with pytest.raises(StoreError, match="NUL"):
        await driver.execute("SELECT ?::text", ("a\x00b",))


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        },
    )


async def test_four_processes_append_and_compact_one_session(
    pg: psycopg.AsyncConnection[Any],
) -> None:
    sid, per_worker = _sid(), 60
    workers = [
        _spawn("tests.stores._pg_worker", PG_DSN, sid, str(w), str(per_worker)) for w in range(4)
    ]
    outputs = await asyncio.gather(*(asyncio.to_thread(w.communicate) for w in workers))
    assert [w.returncode for w in workers] == [0, 0, 0, 0]
    compactions = sum(int(out.split()[-1]) for out, _ in outputs)

    store = PostgresContextStore(pg, sid)
    history = await store.get_history()
    validate_history(history)
    transcript = [m.text for m in await store.get_full_transcript()]
    # every appended message exactly once, each worker's in its own order
    assert sorted(transcript) == sorted(f"w{w}-{i}" for w in range(4) for i in range(per_worker))
    for w in range(4):
        mine = [t for t in transcript if t.startswith(f"w{w}-")]
        assert mine == [f"w{w}-{i}" for i in range(per_worker)]
    # the live history = latest summary pair + every message not archived, none twice
    archived = {a.message.text for a in await store.get_archive() if not a.synthetic}
    live_originals = [m.text for m in history if m.text.startswith("w")]
    assert len(live_originals) == len(set(live_originals))
    assert archived.isdisjoint(live_originals)
    assert archived | set(live_originals) == set(transcript)
    assert compactions >= 1
    assert len(await store.get_compactions()) == compactions
    if compactions:
        assert history[0].text.startswith("summary by w")


async def test_sigkill_during_replace_history_leaves_old_or_new(
    pg: psycopg.AsyncConnection[Any],
) -> None:
    rng = random.Random(7)
    new = new_history()
    for _ in range(2):
        sid = _sid()
        old = old_history()
        await PostgresContextStore(pg, sid).replace_prefix(0, old)
        child = _spawn("tests.stores._crash_helper", "postgres", PG_DSN, sid, "ready")
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        await asyncio.sleep(rng.uniform(0.0, 0.4))
        child.send_signal(signal.SIGKILL)
        child.wait()
        # an uncommitted rewrite is invisible (and rolled back once the server notices)
        assert await PostgresContextStore(pg, sid).get_history() in (old, new)


# --- the suite's own schema ------------------------------------------------------


async def test_the_suite_works_in_a_schema_of_its_own(pg: psycopg.AsyncConnection[Any]) -> None:
    assert PG_SCHEMA.startswith("cftest_") or "CONTEXTFOLD_TEST_PG_SCHEMA" in os.environ
    assert (await (await pg.execute("SHOW search_path")).fetchone()) == (PG_SCHEMA,)
    sid = _sid()
    other = await connect(PG_DSN)  # what pools and subprocess workers are given
    try:
        await PostgresContextStore(other, sid).append(Message.user("where am I?"))
    finally:
        await other.close()
    tables = await (
        await pg.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (PG_SCHEMA,),
        )
    ).fetchall()
    assert ("contextfold_sessions",) in tables
    rows = await (
        await pg.execute(
            f"SELECT count(*) FROM {PG_SCHEMA}.contextfold_sessions WHERE session_id = %s",
            (sid,),
        )
    ).fetchone()
    assert rows == (1,)
    if (await (await pg.execute("SELECT to_regclass('public.contextfold_sessions')")).fetchone())[
        0
    ] is not None:
        public = await (
            await pg.execute(
                "SELECT count(*) FROM public.contextfold_sessions WHERE session_id = %s", (sid,)
            )
        ).fetchone()
        assert public == (0,)


async def test_a_test_session_drops_its_schema_when_it_ends(
    pg: psycopg.AsyncConnection[Any],
) -> None:
    probe = f"cftest_probe_{uuid.uuid4().hex[:12]}"
    chosen = [
        "tests/stores/test_postgres.py::test_the_suite_works_in_a_schema_of_its_own",
        "tests/stores/test_postgres.py::test_four_processes_append_and_compact_one_session",
    ]
    env = {**os.environ, "CONTEXTFOLD_TEST_PG_SCHEMA": probe, "CONTEXTFOLD_REQUIRE_SERVICES": "1"}
    result = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *chosen],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
    left = await (
        await pg.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", (probe,))
    ).fetchone()
    assert left == (0,)  # the schema, its tables and the sessions in them are gone
