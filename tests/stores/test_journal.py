"""The compaction journal and undo, on every store the project ships.

Each test runs on memory, SQLite, PostgreSQL and Redis (``store`` fixture); the races
run two stores on the same session through separate connections (clients), so the
compare-and-swap of the database, not a lock of this process, keeps them apart.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from contextfold import Message
from contextfold.context import ContextStore
from contextfold.errors import (
    CorruptRecordError,
    HistoryConflictError,
    NothingToUndoError,
)
from contextfold.stores import JournalEntry, Journaling
from tests._stores import (
    STORE_KINDS,
    two_stores,
)
from tests.conftest import require_service

pytestmark = pytest.mark.asyncio


def _turns(n: int, start: int = 0) -> list[Message]:
    return [
        Message.user(f"question {i}") if i % 2 == 0 else Message.assistant(f"answer {i}")
        for i in range(start, start + n)
    ]


def _note(summary: str, **fields: Any) -> JournalEntry:
    return JournalEntry(
        0, "", "compaction", outcome="compacted", trigger="usage", summary=summary, **fields
    )


async def _compact(store: Any, keep: int, summary: str) -> bool:
    """Replace all but the last ``keep`` messages with one summary, journaled."""
    history = await store.get_history()
    snapshot = history[: len(history) - keep]
    return bool(
        await store.replace_snapshot(
            snapshot,
            [Message.user(summary)],
            note=_note(summary, summarized_messages=len(snapshot)),
        )
    )


def _texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages]


async def test_every_store_journals_and_undoes(store: ContextStore) -> None:
    assert isinstance(store, Journaling)
    await store.clear()
    for m in _turns(8):
        await store.append(m)
    assert await _compact(store, 2, "summary one")
    await store.append(Message.user("later 1"))
    await store.write_journal(
        JournalEntry(0, "", "attempt", outcome="failed", trigger="usage", error="boom")
    )
    assert await _compact(store, 1, "summary two")
    await store.append(Message.user("later 2"))
    assert _texts(await store.get_history()) == ["summary two", "later 1", "later 2"]

    journal = await store.journal()
    assert [(e.number, e.kind, e.outcome, e.compaction) for e in journal] == [
        (1, "compaction", "compacted", 1),
        (2, "attempt", "failed", None),
        (3, "compaction", "compacted", 2),
    ]
    first = journal[0]
    assert (first.messages_before, first.messages_after, first.summarized_messages) == (8, 3, 6)
    assert (first.summary, first.trigger) == ("summary one", "usage")
    assert first.tokens_before is not None
    assert first.tokens_after is not None
    assert first.tokens_after < first.tokens_before
    assert (journal[1].error, journal[1].messages_before) == ("boom", None)

    undone = await store.undo()
    assert (undone.kind, undone.undoes, undone.outcome) == ("undo", 2, "undone")
    # The history before compaction 2, then what was appended since.
    assert _texts(await store.get_history()) == [
        "summary one",
        *_texts(_turns(2, start=6)),
        "later 1",
        "later 2",
    ]
    undone = await store.undo()
    assert undone.undoes == 1
    assert await store.get_history() == [
        *_turns(8),
        Message.user("later 1"),
        Message.user("later 2"),
    ]
    with pytest.raises(NothingToUndoError, match="no compaction to undo"):
        await store.undo()
    journal = await store.journal()
    assert [e.kind for e in journal] == ["compaction", "attempt", "compaction", "undo", "undo"]
    assert [e.number for e in journal] == [1, 2, 3, 4, 5]


async def test_undo_keeps_every_message_in_the_transcript(store: ContextStore) -> None:
    await store.clear()
    for m in _turns(6):
        await store.append(m)
    await _compact(store, 2, "summary")
    await store.append(Message.user("after"))
    await store.undo()  # type: ignore[attr-defined]
    expected = [*_turns(6), Message.user("after")]
    assert await store.get_history() == expected
    if hasattr(store, "get_full_transcript"):
        # The restored rows are copies; the originals stay archived, counted once.
        assert await store.get_full_transcript() == expected
    # Compacting again and undoing again works on the restored rows.
    await _compact(store, 1, "summary again")
    await store.undo()  # type: ignore[attr-defined]
    assert await store.get_history() == expected


async def test_undo_pinned_to_a_number_refuses_another(store: ContextStore) -> None:
    await store.clear()
    for m in _turns(6):
        await store.append(m)
    await _compact(store, 2, "one")
    await store.append(Message.user("x"))
    await _compact(store, 1, "two")
    before = await store.get_history()
    with pytest.raises(HistoryConflictError, match="not 1"):
        await store.undo(number=1)  # type: ignore[attr-defined]
    assert await store.get_history() == before
    assert (await store.undo(number=2)).undoes == 2  # type: ignore[attr-defined]


async def test_undo_of_a_direct_rewrite_and_of_nothing(store: ContextStore) -> None:
    await store.clear()
    with pytest.raises(NothingToUndoError):
        await store.undo()  # type: ignore[attr-defined]
    for m in _turns(4):
        await store.append(m)
    # A rewrite no compactor described is journaled (bare) and can be undone too.
    await store.replace_history([Message.user("edited"), *_turns(2, start=2)])
    [entry] = await store.journal()  # type: ignore[attr-defined]
    assert (entry.kind, entry.outcome, entry.compaction) == ("compaction", None, 1)
    await store.undo()  # type: ignore[attr-defined]
    assert await store.get_history() == _turns(4)


async def test_fork_copies_the_journal_and_clear_drops_it(store: ContextStore) -> None:
    await store.clear()
    for m in _turns(6):
        await store.append(m)
    await _compact(store, 2, "one")
    forked = await store.fork()
    assert [e.summary for e in await forked.journal()] == ["one"]  # type: ignore[attr-defined]
    await forked.undo()  # type: ignore[attr-defined]
    assert await forked.get_history() == _turns(6)
    assert _texts(await store.get_history())[0] == "one"  # the original is untouched
    await store.clear()
    assert await store.journal() == []  # type: ignore[attr-defined]


# -- races, through two connections ---------------------------------------------------


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_undo_racing_appends_keeps_them_all(kind: str, tmp_path: Path) -> None:
    async with two_stores(kind, tmp_path, require_service) as (undoer, writer):
        for m in _turns(10):
            await undoer.append(m)
        await _compact(undoer, 2, "summary")
        extra = [Message.user(f"racing {i}") for i in range(12)]

        async def append_all() -> None:
            for m in extra:
                await writer.append(m)
                await asyncio.sleep(0)

        await asyncio.gather(undoer.undo(), append_all())
        history = await writer.get_history()
        assert history == [*_turns(10), *extra]
        [*_, last] = await writer.journal()
        assert (last.kind, last.undoes) == ("undo", 1)


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_undo_racing_a_second_compaction(kind: str, tmp_path: Path) -> None:
    """Whichever commits first, nothing is lost and the loser changes nothing."""
    outcomes: set[str] = set()
    async with two_stores(kind, tmp_path, require_service) as (undoer, compactor):
        for round_ in range(8):
            await undoer.clear()
            for m in _turns(10):
                await undoer.append(m)
            await _compact(undoer, 4, "first")
            appended = [Message.user(f"r{round_}")]
            await compactor.append(appended[0])

            async def undo() -> str:
                try:
                    await undoer.undo(number=1)
                except HistoryConflictError:
                    return "undo lost"
                return "undo won"

            async def compact(delay: float = 0.003 * (round_ // 2)) -> str:
                await asyncio.sleep(delay)  # start later as rounds go on
                won = await _compact(compactor, 1, "second")
                return "compaction won" if won else "compaction lost"

            if round_ % 2:
                got = await asyncio.gather(undo(), compact())
            else:
                got = list(reversed(await asyncio.gather(compact(), undo())))
            outcomes.update(got)
            history = await compactor.get_history()
            journal = await compactor.journal()
            kinds = [e.kind for e in journal]
            if got[0] == "undo won" and got[1] == "compaction lost":
                assert history == [*_turns(10), *appended]
                assert kinds == ["compaction", "undo"]
            elif got[0] == "undo won":  # the compaction came first and was undone? never:
                # undo was pinned to number 1, so it could only win before compaction 2;
                # the compaction then summarized the restored history.
                assert kinds == ["compaction", "undo", "compaction"]
                assert _texts(history) == ["second", *_texts(appended)]
                await compactor.undo()
                assert await compactor.get_history() == [*_turns(10), *appended]
            else:
                assert got == ["undo lost", "compaction won"]
                assert kinds == ["compaction", "compaction"]
                assert _texts(history) == ["second", *_texts(appended)]
                # Undo, step by step, still gets every message back.
                await compactor.undo()
                await compactor.undo()
                assert await compactor.get_history() == [*_turns(10), *appended]
    assert outcomes  # every round ended in one of the checked states


# -- stored data ------------------------------------------------------------------------


async def test_sqlite_damaged_journal_line_is_a_corrupt_record(tmp_path: Path) -> None:
    from contextfold.sqlite import SQLiteContextStore, connect

    conn = await connect(tmp_path / "j.db")
    try:
        store = SQLiteContextStore(conn, "s")
        for m in _turns(4):
            await store.append(m)
        await _compact(store, 1, "sum")
        await conn.execute("UPDATE contextfold_journal SET note = '{\"kind\": 7}'")
        await conn.commit()
        with pytest.raises(CorruptRecordError, match="journal line"):
            await store.journal()
    finally:
        await conn.close()


async def test_sqlite_version_2_database_upgrades_and_old_records_refuse_undo(
    tmp_path: Path,
) -> None:
    """A database written before the journal: its records stay listed, cannot be
    undone (where their summary went was not kept), and new ones can."""
    from contextfold.sqlite import SQLiteContextStore, connect

    path = tmp_path / "old.db"
    conn = await connect(path)
    store = SQLiteContextStore(conn, "s")
    for m in _turns(6):
        await store.append(m)
    await store.replace_history([Message.user("old summary"), *_turns(2, start=4)])
    # Make it what version 2 wrote: no journal table, no kept_before column.
    await conn.execute("DROP TABLE contextfold_journal")
    await conn.execute("ALTER TABLE contextfold_compactions DROP COLUMN kept_before")
    await conn.execute("UPDATE contextfold_meta SET value = '2' WHERE key = 'schema_version'")
    await conn.commit()
    await conn.close()

    conn = await connect(path)
    try:
        store = SQLiteContextStore(conn, "s")
        [old] = await store.journal()
        assert (old.kind, old.compaction, old.outcome) == ("compaction", 1, None)
        with pytest.raises(NothingToUndoError, match="older contextfold"):
            await store.undo()
        await store.append(Message.user("new"))
        await _compact(store, 1, "new summary")
        assert (await store.undo()).undoes == 2
        assert _texts(await store.get_history()) == ["old summary", "question 4", "answer 5", "new"]
    finally:
        await conn.close()
