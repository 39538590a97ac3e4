"""SQLite store beyond the shared contract: persistence, archive, O(1) append, errors, crashes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import Message, ToolResultBlock, ToolUseBlock
from contextfold.errors import CorruptRecordError, SchemaVersionError
from contextfold.stores._rows import plan_rewrite, rewrite_window
from contextfold.stores.sqlite import SCHEMA_VERSION, SQLiteContextStore, connect
from contextfold.tokens import count_tokens
from tests.stores._crash_helper import new_history, old_history

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def conn(tmp_path: Path) -> AsyncIterator[aiosqlite.Connection]:
    c = await connect(tmp_path / "store.db")
    yield c
    await c.close()


def _turns(n: int, start: int = 0) -> list[Message]:
    return [
        Message.user(f"q{i}") if i % 2 == 0 else Message.assistant(f"a{i}")
        for i in range(start, start + n)
    ]


async def test_connection_settings(conn: aiosqlite.Connection) -> None:
    assert (await (await conn.execute("PRAGMA journal_mode")).fetchone()) == ("wal",)
    assert (await (await conn.execute("PRAGMA foreign_keys")).fetchone()) == (1,)
    assert (await (await conn.execute("PRAGMA synchronous")).fetchone()) == (1,)  # NORMAL
    assert (await (await conn.execute("PRAGMA busy_timeout")).fetchone()) == (5000,)


def file_modes(folder: Path) -> dict[str, int]:
    """The permission bits of each file in ``folder``, by name."""
    return {path.name: stat.S_IMODE(path.stat().st_mode) for path in folder.iterdir()}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
async def test_a_new_database_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    # It holds conversations; an existing file keeps the mode its owner gave it.
    (tmp_path / "new").mkdir()
    shared = tmp_path / "shared.db"
    umask = os.umask(0o022)
    try:
        shared.touch(mode=0o644)
        conn = await connect(tmp_path / "new" / "new.db")
        await SQLiteContextStore(conn).append(Message("user", []))
        modes = file_modes(tmp_path / "new")
        await conn.close()
        await (await connect(shared)).close()
    finally:
        os.umask(umask)
    assert modes == {"new.db": 0o600, "new.db-wal": 0o600, "new.db-shm": 0o600}
    assert file_modes(tmp_path)["shared.db"] == 0o644


async def test_session_survives_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    conn = await connect(path)
    store = SQLiteContextStore(conn, "agent-1")
    call = Message("assistant", [ToolUseBlock("t1", "read", {"path": "a.py"})])
    await store.append(Message.user("read a.py"))
    await store.append(call)
    await store.add_context_tokens(1234, 56)
    await conn.close()

    conn = await connect(path)
    again = SQLiteContextStore(conn, "agent-1")
    assert await again.get_history() == [Message.user("read a.py"), call]
    assert await again.get_context_tokens() == (1234, 56)
    await again.append(Message("user", [ToolResultBlock("t1", "print(1)")]))
    assert len(await again.get_history()) == 3
    await conn.close()


async def test_many_sessions_per_file_listed_newest_first(conn: aiosqlite.Connection) -> None:
    first, second = SQLiteContextStore(conn, "first"), SQLiteContextStore(conn, "second")
    await first.append(Message.user("first session question"))
    await asyncio.sleep(0.002)  # distinct creation timestamps
    for m in _turns(3):
        await second.append(m)
    await second.add_context_tokens(10, 2)
    infos = await first.list_sessions()
    assert [i.session_id for i in infos] == ["second", "first"]
    assert (infos[0].message_count, infos[0].preview, infos[0].input_tokens) == (3, "q0", 10)
    assert infos[1].preview == "first session question"
    assert await first.get_history() == [Message.user("first session question")]


async def test_unused_store_writes_nothing(conn: aiosqlite.Connection) -> None:
    store = SQLiteContextStore(conn)
    assert await store.get_history() == []
    assert await store.list_sessions() == []


async def test_get_history_is_one_query(conn: aiosqlite.Connection) -> None:
    store = SQLiteContextStore(conn)
    for m in _turns(30):
        await store.append(m)
    statements: list[str] = []
    await conn.set_trace_callback(statements.append)
    assert len(await store.get_history()) == 30
    await conn.set_trace_callback(None)
    assert len(statements) == 1
    assert statements[0].lstrip().startswith("SELECT seq, role, content")


async def _append_work(
    conn: aiosqlite.Connection, store: SQLiteContextStore
) -> tuple[list[str], int]:
    """The SQL statements and the number of SQLite VM instructions of one append."""
    statements: list[str] = []
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    await conn.set_trace_callback(statements.append)
    await conn.set_progress_handler(count, 1)
    await store.append(Message.user("one more"))
    await conn.set_progress_handler(None, 1)
    await conn.set_trace_callback(None)
    # the trace shows statements with their values bound; compare their shapes
    return [re.sub(r"'[^']*'|\b\d+\b", "?", s) for s in statements], steps


async def test_append_cost_does_not_grow_with_the_session(conn: aiosqlite.Connection) -> None:
    store = SQLiteContextStore(conn)
    await store.append(Message.user("start"))
    short_sql, short_steps = await _append_work(conn, store)
    await conn.executemany(  # grow the session to 20,000 rows directly
        "INSERT INTO contextfold_messages (session_id, seq, role, content, tokens) "
        'VALUES (?, ?, \'user\', \'[{"type":"text","text":"x"}]\', 5)',
        [(store.session_id, seq) for seq in range(100, 20_100)],
    )
    await conn.execute(
        "UPDATE contextfold_sessions SET next_seq = 20100 WHERE session_id = ?",
        (store.session_id,),
    )
    long_sql, long_steps = await _append_work(conn, store)
    # Same statements, none of which reads the session's messages ...
    assert short_sql == long_sql
    assert not any("FROM contextfold_messages" in s or "COUNT(" in s for s in long_sql)
    # ... and the same amount of VM work (B-tree seeks are single instructions).
    assert long_steps <= short_steps + 5
    history = await store.get_history()
    assert len(history) == 20_003
    assert history[-1] == Message.user("one more")


async def test_fork_copies_inside_the_database(conn: aiosqlite.Connection) -> None:
    store = SQLiteContextStore(conn, "origin")
    for m in _turns(6):
        await store.append(m)
    await store.replace_history([Message.user("summary"), *_turns(2, start=4)])
    await store.add_context_tokens(70, 7)
    statements: list[str] = []
    await conn.set_trace_callback(statements.append)
    forked = await store.fork()
    await conn.set_trace_callback(None)
    copies = [s for s in statements if s.startswith("INSERT INTO")]
    assert len(copies) == 5  # the session row, then messages, records, archive, journal
    assert all("SELECT" in s for s in copies)
    assert await forked.get_history() == await store.get_history()
    assert await forked.get_full_transcript() == _turns(6)
    assert await forked.get_context_tokens() == (70, 7)
    await forked.append(Message.user("fork only"))
    assert Message.user("fork only") not in await store.get_history()


async def test_replace_history_archives_instead_of_deleting(conn: aiosqlite.Connection) -> None:
    store = SQLiteContextStore(conn)
    original = _turns(10)
    for m in original:
        await store.append(m)
    summary = [Message.user("summary of q0..a5"), Message.assistant("ok")]
    await store.replace_history([*summary, *original[6:]])

    assert await store.get_history() == [*summary, *original[6:]]
    archive = await store.get_archive()
    assert [a.message for a in archive] == original[:6]
    assert {a.compaction for a in archive} == {1}
    assert not any(a.synthetic for a in archive)
    [record] = await store.get_compactions()
    assert (record.number, record.messages_before, record.messages_after, record.archived) == (
        1,
        10,
        6,
        6,
    )
    assert record.tokens_before == count_tokens(original)
    assert record.tokens_after == count_tokens([*summary, *original[6:]])

    # a second compaction archives the first summary too, flagged synthetic
    later = _turns(4, start=10)
    for m in later:
        await store.append(m)
    await store.replace_history([Message.user("summary 2"), Message.assistant("ok"), *later[2:]])
    second = [a for a in await store.get_archive() if a.compaction == 2]
    assert [a.synthetic for a in second] == [True, True, False, False, False, False, False, False]
    # the original transcript is intact and in order
    assert await store.get_full_transcript() == [*original, *later]
    assert [r.number for r in await store.get_compactions()] == [1, 2]


async def test_replace_prefix_keeps_messages_appended_meanwhile(
    conn: aiosqlite.Connection,
) -> None:
    store = SQLiteContextStore(conn)
    for m in _turns(8):
        await store.append(m)
    snapshot = await store.get_history()
    await store.append(Message.user("arrived during summarization"))
    record = await store.replace_prefix(6, [Message.user("summary"), Message.assistant("ok")])
    assert record is not None
    assert record.archived == 6
    assert await store.get_history() == [
        Message.user("summary"),
        Message.assistant("ok"),
        *snapshot[6:],
        Message.user("arrived during summarization"),
    ]
    with pytest.raises(ValueError, match="first 99 messages of a history of 5"):
        await store.replace_prefix(99, [])
    assert len(await store.get_history()) == 5


async def test_replace_history_that_extends_the_history_appends(
    conn: aiosqlite.Connection,
) -> None:
    # Regression: the unchanged prefix was archived and the new message written as a
    # synthetic row, so the full transcript lost it and a bogus record was written.
    store = SQLiteContextStore(conn)
    for m in _turns(2):
        await store.append(m)
    await store.replace_history([*_turns(2), Message.user("q2")])
    assert await store.get_history() == _turns(3)
    assert await store.get_full_transcript() == _turns(3)
    assert await store.get_compactions() == []
    assert await store.get_archive() == []


async def test_replace_prefix_with_the_same_messages_changes_nothing(
    conn: aiosqlite.Connection,
) -> None:
    store = SQLiteContextStore(conn)
    for m in _turns(3):
        await store.append(m)
    assert await store.replace_prefix(2, _turns(2)) is None
    assert await store.get_compactions() == []
    assert await store.get_archive() == []
    assert await store.get_history() == _turns(3)


async def test_rewrite_keeps_the_unchanged_head_and_tail_in_place(
    conn: aiosqlite.Connection,
) -> None:
    store = SQLiteContextStore(conn, "both")
    turns = _turns(8)
    for m in turns:
        await store.append(m)
    summary = Message.assistant("summary of q1..a4")
    record = await store.replace_prefix(6, [turns[0], summary, turns[5]])
    assert record is not None
    assert (record.messages_before, record.messages_after, record.archived) == (8, 5, 4)
    assert [a.message for a in await store.get_archive()] == turns[1:5]
    assert await store.get_history() == [turns[0], summary, *turns[5:]]
    rows = await conn.execute_fetchall(
        "SELECT seq, synthetic FROM contextfold_messages WHERE session_id = 'both' ORDER BY seq"
    )
    assert list(rows) == [(0, 0), (4, 1), (5, 0), (6, 0), (7, 0)]  # kept rows untouched
    assert await store.get_full_transcript() == turns
    # more new messages than free numbers between the kept head and tail: the head is
    # replaced too, and the transcript still holds every original once
    many = [Message.assistant(f"s{i}") for i in range(5)]  # 4 free numbers: 1..4
    await store.replace_history([turns[0], *many, *turns[5:]])
    assert await store.get_history() == [turns[0], *many, *turns[5:]]
    second = [a for a in await store.get_archive() if a.compaction == 2]
    assert [(a.message, a.synthetic) for a in second] == [(turns[0], False), (summary, True)]
    assert await store.get_full_transcript() == turns


@st.composite
def _rewrites(draw: st.DrawFn) -> tuple[list[int], int, list[Message], list[Message], int]:
    """Live rows (numbers, messages), a span length, its replacement, and next_seq."""
    texts = st.sampled_from("abcd")
    old = [Message.user(t) for t in draw(st.lists(texts, max_size=8))]
    gaps = draw(st.lists(st.integers(1, 3), min_size=len(old), max_size=len(old)))
    first = draw(st.integers(-5, 5))
    seqs = [first + sum(gaps[: i + 1]) for i in range(len(old))]
    count = draw(st.integers(0, len(old)))
    new = [Message.user(t) for t in draw(st.lists(texts, max_size=8))]
    next_seq = (seqs[-1] if seqs else 0) + draw(st.integers(1, 3))
    return seqs, count, old, new, next_seq


@given(_rewrites())
def test_rewrite_plan_produces_the_requested_history(
    case: tuple[list[int], int, list[Message], list[Message], int],
) -> None:
    seqs, count, old, new, next_seq = case
    head, tail = rewrite_window(count, len(new))
    plan = plan_rewrite(seqs, count, {i: old[i] for i in [*head, *tail]}, new, next_seq)
    live = dict(zip(seqs, old, strict=True))
    archived = [seq for seq in live if plan.archive_from <= seq < plan.archive_to]
    assert len(archived) == plan.archive_count
    kept = {seq: m for seq, m in live.items() if seq not in archived}
    written = {plan.first_seq + i: m for i, m in enumerate(plan.inserts)}
    assert not kept.keys() & written.keys()
    result = {**kept, **written}
    assert [result[seq] for seq in sorted(result)] == [*new, *old[count:]]
    assert plan.next_seq >= next_seq
    assert all(seq < plan.next_seq for seq in result)
    if not plan.archive_count and plan.inserts and not plan.synthetic:
        assert plan.first_seq >= next_seq  # appends come after everything ever written
    if old[:count] == new:
        assert (plan.archive_count, plan.inserts) == (0, ())
    if new[:count] == old[:count] and len(new) > count == len(old):
        assert (plan.archive_count, plan.synthetic) == (0, False)


async def test_replace_history_rolls_back_on_error(conn: aiosqlite.Connection) -> None:
    store = SQLiteContextStore(conn)
    for m in _turns(4):
        await store.append(m)
    await conn.execute(
        "CREATE TRIGGER boom BEFORE INSERT ON contextfold_compactions "
        "BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
    )
    with pytest.raises(sqlite3.IntegrityError, match="disk on fire"):
        await store.replace_history([Message.user("new")])
    assert await store.get_history() == _turns(4)
    assert await store.get_archive() == []


async def test_concurrent_appends_and_rewrites_share_a_connection(
    conn: aiosqlite.Connection,
) -> None:
    a, b = SQLiteContextStore(conn, "a"), SQLiteContextStore(conn, "b")

    async def writer(store: SQLiteContextStore, tag: str) -> None:
        for i in range(30):
            await store.append(Message.user(f"{tag}{i}"))
            if i % 10 == 9:
                await store.replace_prefix(0, [])  # a no-op rewrite in the middle

    await asyncio.gather(writer(a, "a"), writer(b, "b"), a.add_context_tokens(1, 1))
    assert [m.text for m in await a.get_history()] == [f"a{i}" for i in range(30)]
    assert [m.text for m in await b.get_history()] == [f"b{i}" for i in range(30)]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "Expecting property name"),
        ('[{"type": "text"}]', "text"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
    ids=["invalid-json", "bad-block", "deep-nesting"],
)
async def test_corrupt_row_names_session_and_row(
    conn: aiosqlite.Connection, content: str, problem: str
) -> None:
    store = SQLiteContextStore(conn, "damaged")
    await store.append(Message.user("fine"))
    await store.append(Message.user("about to be damaged"))
    await conn.execute(
        "UPDATE contextfold_messages SET content = ? WHERE session_id = 'damaged' AND seq = 1",
        (content,),
    )
    with pytest.raises(CorruptRecordError, match=problem) as info:
        await store.get_history()
    assert "session 'damaged'" in str(info.value)
    assert "seq=1" in str(info.value)


@pytest.mark.parametrize(
    ("table", "column", "value", "read"),
    [
        ("contextfold_sessions", "input_tokens", "abc", "get_context_tokens"),
        ("contextfold_sessions", "output_tokens", 1.5, "list_sessions"),
        ("contextfold_sessions", "next_seq", "x", "replace_history"),
        ("contextfold_messages", "seq", "x", "replace_prefix"),
        ("contextfold_compactions", "tokens_after", "lots", "get_compactions"),
        ("contextfold_archive", "seq", "x", "get_archive"),
    ],
)
async def test_non_integer_columns_are_corrupt_records(
    conn: aiosqlite.Connection, table: str, column: str, value: object, read: str
) -> None:
    store = SQLiteContextStore(conn, "damaged")
    for m in _turns(4):
        await store.append(m)
    await store.replace_history([Message.user("summary"), *_turns(2, start=2)])
    await conn.execute(  # one row of the session (seq is part of a primary key)
        f"UPDATE {table} SET {column} = ? WHERE rowid = "
        f"(SELECT MIN(rowid) FROM {table} WHERE session_id = 'damaged')",
        (value,),
    )
    calls = {
        "get_context_tokens": store.get_context_tokens,
        "list_sessions": store.list_sessions,
        "replace_history": lambda: store.replace_history([]),
        "replace_prefix": lambda: store.replace_prefix(0, []),
        "get_compactions": store.get_compactions,
        "get_archive": store.get_archive,
    }
    with pytest.raises(CorruptRecordError, match=rf"session 'damaged'.*{value!r}, not an integer"):
        await calls[read]()


async def test_unreadable_schema_version_is_a_corrupt_record(tmp_path: Path) -> None:
    path = tmp_path / "odd.db"
    conn = await connect(path)
    await conn.execute("UPDATE contextfold_meta SET value = 'two' WHERE key = 'schema_version'")
    await conn.close()
    with pytest.raises(CorruptRecordError, match="schema_version 'two'"):
        await connect(path)


async def test_newer_schema_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    conn = await connect(path)
    await SQLiteContextStore(conn, "s").append(Message.user("hi"))
    await conn.execute("UPDATE contextfold_meta SET value = '99' WHERE key = 'schema_version'")
    await conn.close()
    with pytest.raises(
        SchemaVersionError, match=rf"schema version 99.*up to version {SCHEMA_VERSION}"
    ):
        await connect(path)
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT value FROM contextfold_meta").fetchall() == [("99",)]


async def test_version_1_database_still_opens(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    conn = await connect(path)
    await SQLiteContextStore(conn, "s").append(Message.user("written by version 1"))
    await conn.execute("UPDATE contextfold_meta SET value = '1' WHERE key = 'schema_version'")
    await conn.close()
    reopened = await connect(path)
    try:
        store = SQLiteContextStore(reopened, "s")
        assert await store.get_history() == [Message.user("written by version 1")]
        rows = await reopened.execute_fetchall("SELECT value FROM contextfold_meta")
        assert list(rows) == [(str(SCHEMA_VERSION),)]
    finally:
        await reopened.close()


async def test_schema_is_created_on_a_plain_aiosqlite_connection(tmp_path: Path) -> None:
    async with aiosqlite.connect(tmp_path / "plain.db") as plain:
        store = SQLiteContextStore(plain)
        await store.append(Message.user("works"))
        assert await store.get_history() == [Message.user("works")]


async def test_compaction_lock_is_single_flight(conn: aiosqlite.Connection) -> None:
    store = SQLiteContextStore(conn, "s")
    same_session = SQLiteContextStore(conn, "s")
    other = SQLiteContextStore(conn, "other")
    async with store.compaction_lock() as held:
        assert held
        async with same_session.compaction_lock() as second:
            assert not second
        async with other.compaction_lock() as unrelated:
            assert unrelated
    async with same_session.compaction_lock() as again:
        assert again


async def test_compaction_lock_excludes_other_connections(tmp_path: Path) -> None:
    first, second = await connect(tmp_path / "s.db"), await connect(tmp_path / "s.db")
    try:
        here, there = SQLiteContextStore(first, "s"), SQLiteContextStore(second, "s")
        async with here.compaction_lock() as held:
            assert held
            async with there.compaction_lock() as other:
                assert not other  # another connection, as another process would be
            async with SQLiteContextStore(second, "unrelated").compaction_lock() as unrelated:
                assert unrelated
        async with there.compaction_lock() as after:
            assert after
        assert await _leases(first) == []  # released on exit
    finally:
        await first.close()
        await second.close()


async def _leases(conn: aiosqlite.Connection) -> list[tuple[str, str, int]]:
    rows = await conn.execute_fetchall(
        "SELECT session_id, holder, expires_at FROM contextfold_leases"
    )
    return [tuple(r) for r in rows]  # type: ignore[misc]


async def _write_lease(conn: aiosqlite.Connection, holder: str, expires_in_s: float) -> None:
    expires = int((time.time() + expires_in_s) * 1000)
    await conn.execute(
        "INSERT OR REPLACE INTO contextfold_leases VALUES ('s', ?, ?)", (holder, expires)
    )


async def test_lease_of_a_dead_holder_is_taken_over_and_a_live_one_is_respected(
    conn: aiosqlite.Connection,
) -> None:
    store = SQLiteContextStore(conn, "s")
    await _write_lease(conn, "a-holder-that-died", -1)
    async with store.compaction_lock() as held:
        assert held
        [(_, holder, _)] = await _leases(conn)
        assert holder != "a-holder-that-died"
    await _write_lease(conn, "a-live-holder", 3600)
    async with store.compaction_lock() as held:
        assert not held
    assert [row[1] for row in await _leases(conn)] == ["a-live-holder"]  # not released by us


_HOLDER = """
import asyncio, sys
from contextfold.stores.sqlite import SQLiteContextStore, connect

async def main():
    conn = await connect(sys.argv[1])
    try:
        store = SQLiteContextStore(conn, "s", compaction_lease=float(sys.argv[2]))
        async with store.compaction_lock() as held:
            print("held" if held else "busy", flush=True)
            await asyncio.Event().wait()
    finally:
        await conn.close()

asyncio.run(main())
"""


def _start_holder(path: Path, lease_s: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path), str(lease_s)], stdout=subprocess.PIPE, text=True
    )


async def test_lease_of_a_killed_process_expires(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    child = _start_holder(path, 1.0)
    assert child.stdout is not None
    try:
        first_line = await asyncio.wait_for(asyncio.to_thread(child.stdout.readline), 60)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert first_line.strip() == "held"
    conn = await connect(path)
    try:
        store = SQLiteContextStore(conn, "s")
        [(_, dead_holder, _)] = await _leases(conn)
        for _ in range(300):  # the dead holder's lease runs out; nobody renews it
            async with store.compaction_lock() as held:
                if held:
                    [(_, holder, _)] = await _leases(conn)
                    assert holder != dead_holder
                    break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the lease of a killed process never expired")
    finally:
        await conn.close()


async def test_lease_is_renewed_while_its_holder_works(tmp_path: Path) -> None:
    first, second = await connect(tmp_path / "s.db"), await connect(tmp_path / "s.db")
    try:
        holder = SQLiteContextStore(first, "s", compaction_lease=0.8)
        other = SQLiteContextStore(second, "s", compaction_lease=0.8)
        async with holder.compaction_lock() as held:
            assert held
            [(_, _, first_expiry)] = await _leases(first)
            for _ in range(25):  # 2.5 s: three lease lengths
                await asyncio.sleep(0.1)
                async with other.compaction_lock() as stolen:
                    assert not stolen
            [(_, _, later_expiry)] = await _leases(first)
            assert later_expiry > first_expiry
    finally:
        await first.close()
        await second.close()


async def test_a_holder_that_outlived_its_lease_leaves_the_new_holder_alone(
    tmp_path: Path,
) -> None:
    first, second = await connect(tmp_path / "s.db"), await connect(tmp_path / "s.db")
    try:
        stalled, fresh = SQLiteContextStore(first, "s"), SQLiteContextStore(second, "s")
        stalled_lock, fresh_lock = stalled.compaction_lock(), fresh.compaction_lock()
        assert await stalled_lock.__aenter__()
        await first.execute("UPDATE contextfold_leases SET expires_at = 0")  # it stalled
        assert await fresh_lock.__aenter__()  # so the lease is taken over
        [(_, new_holder, _)] = await _leases(first)
        await stalled_lock.__aexit__(None, None, None)
        assert [row[1] for row in await _leases(first)] == [new_holder]  # not released
        async with SQLiteContextStore(first, "s").compaction_lock() as third:
            assert not third
        await fresh_lock.__aexit__(None, None, None)
        assert await _leases(first) == []
    finally:
        await first.close()
        await second.close()


async def test_lease_is_released_on_error_and_on_cancellation(conn: aiosqlite.Connection) -> None:
    store = SQLiteContextStore(conn, "s")

    async def fail_inside() -> None:
        async with store.compaction_lock() as held:
            assert held
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await fail_inside()
    assert await _leases(conn) == []
    inside = asyncio.Event()

    async def hold() -> None:
        async with store.compaction_lock() as held:
            assert held
            inside.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(hold())
    await inside.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _leases(conn) == []


async def test_a_lease_that_cannot_be_claimed_reads_as_busy(
    conn: aiosqlite.Connection, tmp_path: Path
) -> None:
    blocker = sqlite3.connect(tmp_path / "store.db", isolation_level=None)
    quick = await connect(tmp_path / "store.db", busy_timeout_ms=50)
    try:
        blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        async with SQLiteContextStore(quick, "s").compaction_lock() as held:
            assert not held
        blocker.execute("ROLLBACK")
        async with SQLiteContextStore(quick, "s").compaction_lock() as held:
            assert held
    finally:
        blocker.close()
        await quick.close()


async def _can_write(conn: aiosqlite.Connection, path: Path) -> None:
    """The store's connection appends, and another connection writes, both at once."""
    await SQLiteContextStore(conn, "after").append(Message.user("still writable"))
    other = sqlite3.connect(path, isolation_level=None, timeout=0.5)
    try:
        other.execute("BEGIN IMMEDIATE")  # 'database is locked' if a transaction was left open
        other.execute("ROLLBACK")
    finally:
        other.close()


async def test_a_renewal_waiting_for_the_write_lock_when_the_block_ends_closes_its_transaction(
    tmp_path: Path,
) -> None:
    # A renewal's BEGIN IMMEDIATE waits on the busy timeout (another process writes)
    # when the compaction ends and the keeper is stopped. The BEGIN still completes on
    # aiosqlite's worker thread; it must be rolled back, not left open on the connection.
    path = tmp_path / "store.db"
    conn = await connect(path, busy_timeout_ms=3000)
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        store = SQLiteContextStore(conn, "s", compaction_lease=0.4)  # renewed every 0.1 s
        async with store.compaction_lock() as held:
            assert held
            blocker.execute("BEGIN IMMEDIATE")
            await asyncio.sleep(0.25)  # a renewal is now waiting for the write lock
            asyncio.get_running_loop().call_later(0.2, blocker.execute, "ROLLBACK")
        assert await _leases(conn) == []  # released, after the stopped renewal let go
        await _can_write(conn, path)
    finally:
        blocker.close()
        await conn.close()


async def test_a_claim_cancelled_while_waiting_for_the_write_lock_leaves_no_transaction(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.db"
    conn = await connect(path, busy_timeout_ms=3000)
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        store = SQLiteContextStore(conn, "s")
        entered = asyncio.Event()

        async def compact() -> None:
            async with store.compaction_lock():
                entered.set()

        blocker.execute("BEGIN IMMEDIATE")
        task = asyncio.create_task(compact())
        await asyncio.sleep(0.2)  # the claim's BEGIN IMMEDIATE waits for the write lock
        task.cancel()
        asyncio.get_running_loop().call_later(0.2, blocker.execute, "ROLLBACK")
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not entered.is_set()
        await _can_write(conn, path)
        assert await _leases(conn) == []
    finally:
        blocker.close()
        await conn.close()


@pytest.mark.parametrize("operation", ["replace_history", "replace_snapshot", "fork", "schema"])
async def test_a_write_cancelled_while_waiting_for_the_write_lock_leaves_no_transaction(
    tmp_path: Path, operation: str
) -> None:
    # Every multi-statement write goes through one transaction helper; a cancellation
    # while its BEGIN IMMEDIATE waits out the busy timeout must not leave that BEGIN's
    # transaction open once the other writer lets go.
    path = tmp_path / "store.db"
    conn = await connect(path, busy_timeout_ms=3000)
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        store = SQLiteContextStore(conn, "s")
        await store.append(Message.user("q0"))
        if operation == "schema":
            await conn.close()  # a fresh connection: its first write installs the schema
            conn = await aiosqlite.connect(path, isolation_level=None)
            await conn.execute("PRAGMA busy_timeout = 3000")
            store = SQLiteContextStore(conn, "s")
        writes = {
            "replace_history": lambda: store.replace_history(_turns(2)),
            "replace_snapshot": lambda: store.replace_snapshot([Message.user("q0")], _turns(2)),
            "fork": store.fork,
            "schema": lambda: store.get_history(),
        }
        blocker.execute("BEGIN IMMEDIATE")
        task = asyncio.create_task(writes[operation]())
        await asyncio.sleep(0.2)  # its BEGIN IMMEDIATE waits for the write lock
        task.cancel()
        asyncio.get_running_loop().call_later(0.2, blocker.execute, "ROLLBACK")
        with pytest.raises(asyncio.CancelledError):
            await task
        await _can_write(conn, path)
        assert await SQLiteContextStore(conn, "s").get_history() == [Message.user("q0")]
    finally:
        blocker.close()
        await conn.close()


async def test_a_compaction_cancelled_at_any_step_leaves_no_lease_and_no_transaction(
    tmp_path: Path,
) -> None:
    # Cancelled after 0, 1, 2, ... turns of the event loop: before, during and after the
    # claim's thread hops (BEGIN, upsert, read, COMMIT), inside the block, and while the
    # lease is released. A claim that committed just as the cancellation came is released.
    path = tmp_path / "store.db"
    conn = await connect(path)
    try:
        store = SQLiteContextStore(conn, "s")
        for turns in range(60):

            async def compact() -> None:
                async with store.compaction_lock():
                    await asyncio.sleep(0)

            task = asyncio.create_task(compact())
            for _ in range(turns):
                await asyncio.sleep(0)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            assert await _leases(conn) == [], f"a lease was left after {turns} turns"
        await _can_write(conn, path)
    finally:
        await conn.close()


@pytest.mark.parametrize("lease", [0, -1, float("nan"), float("inf"), "30", True])
def test_invalid_compaction_lease(lease: object) -> None:
    with pytest.raises(ValueError, match="compaction_lease must be a positive number"):
        SQLiteContextStore(None, "s", compaction_lease=lease)  # type: ignore[arg-type]


@pytest.mark.parametrize("session_id", ["", "a\x00b", "a\ud800b"])
def test_invalid_session_id(session_id: str) -> None:
    with pytest.raises(ValueError, match="non-empty string without NUL"):
        SQLiteContextStore(None, session_id)  # type: ignore[arg-type]


# --- crash safety -------------------------------------------------------------------


async def _prepared(path: Path, session_id: str) -> list[Message]:
    conn = await connect(path)
    old = old_history()
    await SQLiteContextStore(conn, session_id).replace_prefix(0, old)
    await conn.close()
    return old


def _start_child(path: Path, session_id: str, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.stores._crash_helper", "sqlite", str(path), session_id, mode],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        },
    )


def _wait_for(child: subprocess.Popen[str], line: str) -> None:
    assert child.stdout is not None
    for got in child.stdout:
        if got.strip() == line:
            return
    raise AssertionError(f"child exited (rc={child.wait()}) before printing {line!r}")


async def _after_crash(path: Path, session_id: str) -> list[Message]:
    conn = await connect(path)
    try:
        return await SQLiteContextStore(conn, session_id).get_history()
    finally:
        await conn.close()


async def test_sigkill_inside_replace_history_keeps_the_old_history(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    old = await _prepared(path, "s")
    child = _start_child(path, "s", "mid")
    _wait_for(child, "mid")  # the archive copy is written, the delete is about to run
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert await _after_crash(path, "s") == old
    conn = await connect(path)
    store = SQLiteContextStore(conn, "s")
    assert await store.get_archive() == []
    assert await store.get_compactions() == []
    await conn.close()


async def test_sigkill_at_random_points_leaves_old_or_new(tmp_path: Path) -> None:
    rng = random.Random(5)
    new = new_history()
    outcomes = set()
    for attempt in range(4):
        path = tmp_path / f"random{attempt}.db"
        old = await _prepared(path, "s")
        child = _start_child(path, "s", "ready")
        _wait_for(child, "ready")
        await asyncio.sleep(rng.uniform(0.0, 0.3))
        child.send_signal(signal.SIGKILL)
        child.wait()
        history = await _after_crash(path, "s")
        assert history in (old, new)
        outcomes.add("old" if history == old else "new")
    assert outcomes  # which ones occur depends on the machine's speed; both are correct


async def test_replace_history_leaves_the_kept_tail_rows_in_place(
    conn: aiosqlite.Connection,
) -> None:
    store = SQLiteContextStore(conn, "tail")
    turns = _turns(6)
    for m in turns:
        await store.append(m)

    async def seqs() -> list[int]:
        rows = await conn.execute_fetchall(
            "SELECT seq FROM contextfold_messages WHERE session_id = 'tail' ORDER BY seq"
        )
        return [r[0] for r in rows]

    await store.replace_history([Message.user("summary"), *turns[3:]])
    assert (await seqs())[1:] == [3, 4, 5]  # untouched rows, not rewritten copies
    await store.replace_history([Message.user("preface"), *await store.get_history()])
    assert await store.get_history() == [
        Message.user("preface"),
        Message.user("summary"),
        *turns[3:],
    ]
    # The prepend archived nothing, but moved every live row: it is recorded (undo
    # counts on a record for every rewrite that moves rows), with nothing archived.
    [_, prepend] = await store.get_compactions()
    assert (prepend.archived, prepend.inserted, prepend.kept_before) == (0, 1, 0)
    await store.replace_history([])
    assert await store.get_history() == []
    assert await store.get_full_transcript() == turns
