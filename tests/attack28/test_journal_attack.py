"""Hostile tests of issue 28 (the compaction journal and undo).

Tests marked ``# FAILS`` in their docstring show a defect in the code as built (they
fail now and pass once it is fixed); the others check a property that holds.

Every store kind runs where it matters: memory, SQLite, PostgreSQL (the test
server's own schema, dropped at the end of the session) and Redis (a key prefix of
the test's own, deleted after). Races are made deterministic by running the other
connection's write from inside the racing call's ``replace_snapshot``, just before
the real compare-and-swap.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from contextfold import Message
from contextfold.errors import (
    CorruptRecordError,
    HistoryConflictError,
    NothingToUndoError,
    StoreError,
)
from contextfold.stores import JournalEntry
from tests._stores import (
    STORE_KINDS,
    open_store,
    two_stores,
)
from tests.conftest import require_service

PERSISTENT = ["sqlite", "postgres", "redis"]


def _turns(n: int, start: int = 0) -> list[Message]:
    return [
        Message.user(f"m{i}") if i % 2 == 0 else Message.assistant(f"m{i}")
        for i in range(start, start + n)
    ]


def _note(summary: str) -> JournalEntry:
    return JournalEntry(0, "", "compaction", outcome="compacted", trigger="usage", summary=summary)


def _texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages]


def _race_before_cas(store: Any, other: Any) -> None:
    """Make ``store``'s next ``replace_snapshot`` run ``other()`` first (once)."""
    real = store.replace_snapshot

    async def racing(snapshot: Any, messages: Any, **kw: Any) -> bool:
        store.replace_snapshot = real
        await other()
        return bool(await real(snapshot, messages, **kw))

    store.replace_snapshot = racing


# -- 1. a rewrite that archives nothing moves the rows undo points at -------------------


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_undo_after_an_insert_only_rewrite_does_not_corrupt(
    kind: str, tmp_path: Path
) -> None:
    """Failed before the fix (all four stores).

    A rewrite that only inserts (``replace_prefix(0, [x])``: nothing archived) wrote
    no CompactionRecord, yet shifted every row by one; ``undo_last`` then trusted the
    earlier record's ``kept_before``/``inserted`` and replaced ``[x, m0, m1]`` with
    ``[x, m0, m2..m5]``: ``m1`` vanished and the summary stayed live next to its
    originals. Now a rewrite that moves live rows is recorded, so the first undo
    reverts the insert and the second the summary; a refusal that changes nothing
    would be correct too.
    """
    async with open_store(kind, tmp_path, require_service) as store:
        msgs = _turns(6)
        for m in msgs:
            await store.append(m)
        assert await store.replace_snapshot(msgs, [*msgs[:2], Message.user("SUMMARY")])
        await store.append(Message.user("later"))
        await store.replace_prefix(0, [Message.user("inserted")])
        before = _texts(await store.get_history())
        try:
            await store.undo()
        except (HistoryConflictError, CorruptRecordError, NothingToUndoError):
            assert _texts(await store.get_history()) == before
            return
        after = _texts(await store.get_history())
        assert after == ["m0", "m1", "SUMMARY", "later"], after
        await store.undo()
        assert _texts(await store.get_history()) == [*_texts(msgs), "later"]


# -- 2. undoing a deletion at the end duplicates the transcript ------------------------


@pytest.mark.parametrize("kind", PERSISTENT)
async def test_undo_of_a_tail_deletion_keeps_the_transcript_unique(
    kind: str, tmp_path: Path
) -> None:
    """Failed before the fix (SQLite, PostgreSQL, Redis).

    ``replace_history(history[:3])`` archives m3, m4 (non-synthetic, their own seqs).
    Undo puts them back at the end of the history; ``plan_rewrite`` numbers inserts
    after everything and, since the undo archives nothing, marks them *not synthetic*
    (as if appended). ``get_full_transcript()`` then lists m3, m4 twice (from the
    archive and from the live rows). Every message appended once must appear once.
    """
    async with open_store(kind, tmp_path, require_service) as store:
        msgs = _turns(5)
        for m in msgs:
            await store.append(m)
        await store.replace_history(msgs[:3])
        await store.undo()
        assert _texts(await store.get_history()) == _texts(msgs)
        assert _texts(await store.get_full_transcript()) == _texts(msgs)


# -- 3. undo's compare-and-swap is only on the kept head --------------------------------


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_two_racing_undos_of_a_deletion_restore_once(kind: str, tmp_path: Path) -> None:
    """Failed before the fix (all four stores).

    Compaction #1 deleted m2, m3 (inserted nothing), so the undo's snapshot is just
    ``history[:2]``, which the first undo leaves unchanged. Two connections undoing at
    once both succeed: the history becomes ``m0 m1 m2 m3 m2 m3 m4 m5`` and the journal
    has two ``undo`` lines for #1. The second should raise HistoryConflictError or
    NothingToUndoError (it undid the same rewrite) and change nothing.
    """
    async with two_stores(kind, tmp_path, require_service) as (a, b):
        msgs = _turns(6)
        for m in msgs:
            await a.append(m)
        await a.replace_history([*msgs[:2], *msgs[4:]])

        async def first_undo() -> None:
            await a.undo()

        _race_before_cas(b, first_undo)
        with contextlib.suppress(HistoryConflictError, NothingToUndoError):
            await b.undo()
        assert _texts(await a.get_history()) == _texts(msgs)
        undos = [e for e in await a.journal() if e.kind == "undo"]
        assert [e.undoes for e in undos] == [1]


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_undo_racing_a_later_compaction_fails_rather_than_undoing_the_wrong_one(
    kind: str, tmp_path: Path
) -> None:
    """Failed before the fix (all four stores).

    The docstring of ``undo_last``/``AutoCompactStore.undo`` promises: "a compaction
    committing meanwhile makes it raise HistoryConflictError and change nothing". The
    re-check of the record numbers is done before the CAS, not with it, and the CAS
    only covers ``history[:front+written]``. A compaction #2 that rewrites rows *after*
    that span lands between the check and the CAS, and undo of #1 commits anyway.
    #2's record now points at shifted rows, and undoing it next leaves the history
    corrupted (a summary live beside its originals, messages lost). Either undo of #1
    raises HistoryConflictError, or the later undo of #2 still ends on the original
    history.
    """
    async with two_stores(kind, tmp_path, require_service) as (a, b):
        msgs = _turns(8)
        for m in msgs:
            await a.append(m)
        # #1: summarize m0..m3 into S1
        assert await a.replace_snapshot(msgs[:4], [Message.user("S1")], note=_note("S1"))

        async def second_compaction() -> None:
            h = await a.get_history()  # S1 m4 m5 m6 m7
            assert await a.replace_snapshot(h, [*h[:2], Message.user("S2")], note=_note("S2"))

        _race_before_cas(b, second_compaction)
        try:
            await b.undo()
        except HistoryConflictError:
            assert _texts(await a.get_history()) == ["S1", "m4", "S2"]
            return
        # undo of #1 committed after #2: undoing what is left must still give the original
        while True:
            try:
                await a.undo()
            except NothingToUndoError:
                break
        assert _texts(await a.get_history()) == _texts(msgs)


# -- 4. damaged journal/records: clear typed errors, never garbage ---------------------


async def _sqlite_with_compaction(path: Path) -> None:
    from contextfold.sqlite import SQLiteContextStore, connect

    conn = await connect(path)
    try:
        store = SQLiteContextStore(conn, "s")
        msgs = _turns(6)
        for m in msgs:
            await store.append(m)
        assert await store.replace_snapshot(msgs[:4], [Message.user("SUM")], note=_note("SUM"))
    finally:
        await conn.close()


def _damage(path: Path, sql: str) -> None:
    db = sqlite3.connect(path)
    try:
        db.execute(sql)
        db.commit()
    finally:
        db.close()


@asynccontextmanager
async def _sqlite_store(path: Path) -> AsyncIterator[Any]:
    from contextfold.sqlite import SQLiteContextStore, connect

    conn = await connect(path)
    try:
        yield SQLiteContextStore(conn, "s")
    finally:
        await conn.close()


async def test_journal_line_naming_a_missing_record_is_a_typed_error(tmp_path: Path) -> None:
    """Failed before the fix.

    A journal line whose ``compaction`` names no record (a damaged row, or a record
    lost to a partial restore) makes ``last_undoable`` pick it and ``undo_last`` run
    ``next(r for r in records if r.number == last)`` with nothing matching: the
    StopIteration inside the coroutine surfaces as ``RuntimeError: coroutine raised
    StopIteration``. It should be CorruptRecordError (a StoreError) and nothing changed.
    """
    path = tmp_path / "d.db"
    await _sqlite_with_compaction(path)
    _damage(path, "UPDATE contextfold_journal SET compaction = 99")
    async with _sqlite_store(path) as store:
        before = _texts(await store.get_history())
        with pytest.raises(StoreError):
            await store.undo()
        assert _texts(await store.get_history()) == before


async def test_negative_kept_before_is_refused_not_applied(tmp_path: Path) -> None:
    """Failed before the fix.

    A record with ``kept_before = -1`` (damaged) passes undo's sanity check
    (``len(history) < front + written`` is false) and ``history[:-1]`` slicing makes
    undo commit garbage: ``['SUM','m4','m0','m1','m2','m3','SUM','m4','m5']`` (the
    summary twice, the tail duplicated). It should raise CorruptRecordError and change
    nothing.
    """
    path = tmp_path / "d.db"
    await _sqlite_with_compaction(path)
    _damage(path, "UPDATE contextfold_compactions SET kept_before = -1")
    async with _sqlite_store(path) as store:
        before = _texts(await store.get_history())
        with pytest.raises(CorruptRecordError):
            await store.undo()
        assert _texts(await store.get_history()) == before


async def test_journal_note_with_wrong_typed_field_is_a_typed_error(tmp_path: Path) -> None:
    """Failed before the fix.

    ``decode_note`` checks only that the note is a dict with a known ``kind``; a
    damaged note ``{"kind":"compaction","summary":5}`` becomes a JournalEntry whose
    ``summary`` is the int 5 (the CLI's ``sessions diff`` then dies with
    ``AttributeError: 'int' object has no attribute 'strip'``). ``journal()`` should
    raise CorruptRecordError for a field of the wrong type.
    """
    path = tmp_path / "d.db"
    await _sqlite_with_compaction(path)
    _damage(path, """UPDATE contextfold_journal SET note = '{"kind":"compaction","summary":5}'""")
    async with _sqlite_store(path) as store:
        with pytest.raises(CorruptRecordError):
            await store.journal()


async def test_undecodable_journal_note_is_a_typed_error(tmp_path: Path) -> None:
    """Passes: a note that is not JSON raises CorruptRecordError from journal() and undo()."""
    path = tmp_path / "d.db"
    await _sqlite_with_compaction(path)
    _damage(path, "UPDATE contextfold_journal SET note = '[1'")
    async with _sqlite_store(path) as store:
        with pytest.raises(CorruptRecordError):
            await store.journal()
        with pytest.raises(CorruptRecordError):
            await store.undo()


# -- 5. the CLI on damaged databases ---------------------------------------------------


def _cli(argv: list[str]) -> int:
    from contextfold.cli import main

    try:
        return main(argv)
    except BaseException as exc:  # a traceback is the defect
        pytest.fail(f"contextfold {' '.join(argv)} raised {exc!r} instead of a one-line error")


@pytest.mark.parametrize("command", ["diff", "undo"])
def test_cli_on_a_journal_line_naming_a_missing_record(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Failed before the fix (diff and undo).

    ``contextfold sessions diff|undo DB s`` on a database whose journal line names a
    record that does not exist dies with ``RuntimeError: coroutine raised
    StopIteration`` (a traceback) instead of a one-line error and a non-zero exit.
    """
    path = tmp_path / "d.db"
    asyncio.run(_sqlite_with_compaction(path))
    _damage(path, "UPDATE contextfold_journal SET compaction = 99")
    rc = _cli(["sessions", command, str(path), "s"])
    err = capsys.readouterr().err
    assert rc != 0
    assert "Traceback" not in err


def test_cli_diff_on_a_note_with_a_non_text_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Failed before the fix.

    ``contextfold sessions diff`` on a note whose ``summary`` is not a string dies with
    ``AttributeError: 'int' object has no attribute 'strip'``; it should be a one-line
    error naming the damaged row, non-zero exit.
    """
    path = tmp_path / "d.db"
    asyncio.run(_sqlite_with_compaction(path))
    _damage(path, """UPDATE contextfold_journal SET note = '{"kind":"compaction","summary":5}'""")
    rc = _cli(["sessions", "diff", str(path), "s"])
    assert rc != 0


@pytest.mark.parametrize(
    "argv",
    [
        ["sessions", "undo", "{db}", "nosuch"],
        ["sessions", "undo", "{junk}", "s"],
        ["sessions", "undo", "{missing}", "s"],
        ["sessions", "upgrade", "{junk}"],
        ["sessions", "undo", "{db}", "s", "extra"],
    ],
)
def test_cli_bad_arguments_are_one_line_errors(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Passes: unknown session, a non-database, a missing file, extra words: exit 1,
    one line on stderr."""
    db = tmp_path / "a.db"
    asyncio.run(_sqlite_with_compaction(db))
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    names = {"db": str(db), "junk": str(junk), "missing": str(tmp_path / "none.db")}
    rc = _cli([a.format(**names) for a in argv])
    err = capsys.readouterr().err.strip()
    assert rc != 0
    assert err
    assert "\n" not in err
    assert "Traceback" not in err


def test_cli_undo_twice_then_nothing_to_undo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Passes: undo restores the six messages; a second undo is a one-line error."""
    db = tmp_path / "a.db"
    asyncio.run(_sqlite_with_compaction(db))
    assert _cli(["sessions", "undo", str(db), "s"]) == 0
    capsys.readouterr()
    assert _cli(["sessions", "undo", str(db), "s"]) != 0
    err = capsys.readouterr().err.strip()
    assert "undone" in err
    assert "\n" not in err


# -- 6. hostile text in the journal note -----------------------------------------------


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_summary_with_an_unpaired_surrogate_commits_and_journals(
    kind: str, tmp_path: Path
) -> None:
    """Failed before the fix (SQLite; PostgreSQL and Redis likewise when reachable).

    Message content with unpaired surrogates is stored escaped (``encode_content``
    falls back to ``ensure_ascii=True``), but ``encode_note`` always dumps with
    ``ensure_ascii=False``: a summary holding ``\\ud800`` makes ``replace_snapshot(...,
    note=)`` raise a bare ``UnicodeEncodeError`` from the driver, so the whole
    compaction fails because of its journal line. The note should round-trip like
    message content (or be made storable), and the commit should succeed.
    """
    async with open_store(kind, tmp_path, require_service) as store:
        msgs = _turns(6)
        for m in msgs:
            await store.append(m)
        summary = "bad \ud800 text \x00 and ☃"
        assert await store.replace_snapshot(msgs[:4], [Message.user("SUM")], note=_note(summary))
        [entry] = await store.journal()
        assert entry.summary == summary
        await store.undo()
        assert _texts(await store.get_history()) == _texts(msgs)


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_huge_non_ascii_summary_round_trips(kind: str, tmp_path: Path) -> None:
    """Passes: a 1 MB non-ASCII summary with NUL and newlines round-trips in the journal."""
    async with open_store(kind, tmp_path, require_service) as store:
        msgs = _turns(6)
        for m in msgs:
            await store.append(m)
        summary = ("résumé ☃ \x00 line\n" * 60_000)[:1_000_000]
        assert await store.replace_snapshot(msgs[:4], [Message.user("SUM")], note=_note(summary))
        [entry] = await store.journal()
        assert entry.summary == summary


# -- 7. clock skew ---------------------------------------------------------------------


async def test_journal_order_follows_commit_order_not_clocks(tmp_path: Path) -> None:
    """Failed before the fix (low severity).

    ``build_journal`` sorts lines by their ``created_at`` text, not by the order the
    store committed them (the journal's own ``number`` column / the compaction
    numbers). With clock skew across processes a later compaction whose clock is
    behind is listed first, and every entry's number shifts: ``journal()[-1]`` is no
    longer the last compaction, and "journal entry #N" printed by ``sessions undo``
    names a different entry once a skewed line is added. The journal should stay in
    commit order.
    """
    path = tmp_path / "d.db"
    await _sqlite_with_compaction(path)
    async with _sqlite_store(path) as store:
        h = await store.get_history()  # SUM m4 m5
        assert await store.replace_snapshot(h, [Message.user("SUM2")], note=_note("SUM2"))
    # the second process's clock was an hour behind
    _damage(
        path,
        "UPDATE contextfold_journal SET created_at = '2000-01-01T00:00:00+00:00' "
        "WHERE compaction = 2",
    )
    _damage(
        path,
        "UPDATE contextfold_compactions SET created_at = '2000-01-01T00:00:00+00:00' "
        "WHERE number = 2",
    )
    async with _sqlite_store(path) as store:
        journal = await store.journal()
        assert [e.compaction for e in journal] == [1, 2]


async def test_undo_target_ignores_clock_skew(tmp_path: Path) -> None:
    """Passes: undo picks the highest compaction number, whatever the timestamps say."""
    path = tmp_path / "d.db"
    await _sqlite_with_compaction(path)
    async with _sqlite_store(path) as store:
        h = await store.get_history()
        assert await store.replace_snapshot(h, [Message.user("SUM2")], note=_note("SUM2"))
    _damage(path, "UPDATE contextfold_journal SET created_at = '2000' WHERE compaction = 2")
    async with _sqlite_store(path) as store:
        assert (await store.undo()).undoes == 2
        assert _texts(await store.get_history()) == ["SUM", "m4", "m5"]


# -- 8. random interleavings (property) ------------------------------------------------


async def _random_session(store: Any, seed: int, *, tail_deletions: bool) -> list[str]:
    rng = random.Random(seed)
    appended: list[Message] = []
    counter = 0

    def fresh(prefix: str) -> Message:
        nonlocal counter
        counter += 1
        text = f"{prefix}-{counter}"
        return Message.user(text) if counter % 2 else Message.assistant(text)

    for _ in range(30):
        h = await store.get_history()
        op = rng.choice(["append"] * 3 + ["summ", "mask", "delete", "prefix", "undo"])
        if op == "append" or len(h) < 2:
            m = fresh("m")
            appended.append(m)
            await store.append(m)
        elif op == "summ":  # summarize a middle span, keep the tail
            i = rng.randrange(0, len(h))
            j = rng.randrange(i + 1, len(h) + 1)
            assert await store.replace_snapshot(h[:j], [*h[:i], fresh("S")], note=_note("s"))
        elif op == "mask":  # edit one middle message, keep head and tail
            k = rng.randrange(0, len(h))
            await store.replace_history([*h[:k], fresh("MASK"), *h[k + 1 :]])
        elif op == "delete":  # a rewrite that inserts nothing
            i = rng.randrange(0, len(h))
            j = rng.randrange(i + 1, len(h) + 1)
            if not tail_deletions and j == len(h):
                j -= 1
            if j > i:
                await store.replace_history([*h[:i], *h[j:]])
        elif op == "prefix":
            await store.replace_prefix(rng.randrange(1, len(h) + 1), [fresh("P")])
        else:
            with contextlib.suppress(NothingToUndoError):
                await store.undo()
    for _ in range(100):
        try:
            await store.undo()
        except NothingToUndoError:
            break
    return _texts(appended)


@pytest.mark.parametrize("kind", STORE_KINDS)
@pytest.mark.parametrize("seed", range(6))
async def test_random_interleavings_undo_back_to_the_transcript(
    kind: str, seed: int, tmp_path: Path
) -> None:
    """Passes (without deletions at the end, see the tail-deletion test): after random
    appends, summaries, middle edits, deletions, prefix rewrites and undos, undoing
    everything gives back the appended transcript in order, and
    ``get_full_transcript()`` neither duplicates nor loses a message."""
    async with open_store(kind, tmp_path, require_service) as store:
        expected = await _random_session(store, seed, tail_deletions=False)
        assert _texts(await store.get_history()) == expected
        if hasattr(store, "get_full_transcript"):
            assert _texts(await store.get_full_transcript()) == expected


@pytest.mark.parametrize("kind", PERSISTENT)
async def test_random_interleavings_with_tail_deletions_keep_the_transcript(
    kind: str, tmp_path: Path
) -> None:
    """Failed before the fix (same defect as the tail-deletion test, found by the random sequence of
    seed 2): with deletions at the end allowed, the history is right after undoing
    everything but ``get_full_transcript()`` repeats messages (e.g. m-15, m-20 twice)."""
    async with open_store(kind, tmp_path, require_service) as store:
        expected = await _random_session(store, 2, tail_deletions=True)
        assert _texts(await store.get_history()) == expected
        assert _texts(await store.get_full_transcript()) == expected


# -- 9. undo after clear / fork, cancellation, racing undos ----------------------------


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_undo_after_clear_has_nothing_to_undo(kind: str, tmp_path: Path) -> None:
    """Passes: clear() drops the journal; undo raises NothingToUndoError, history empty."""
    async with open_store(kind, tmp_path, require_service) as store:
        msgs = _turns(6)
        for m in msgs:
            await store.append(m)
        assert await store.replace_snapshot(msgs[:4], [Message.user("SUM")], note=_note("SUM"))
        await store.clear()
        with pytest.raises(NothingToUndoError):
            await store.undo()
        assert await store.get_history() == []


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_undo_in_a_fork_leaves_the_parent(kind: str, tmp_path: Path) -> None:
    """Passes: a fork keeps the journal; undo in the fork restores the fork only."""
    async with open_store(kind, tmp_path, require_service) as store:
        msgs = _turns(6)
        for m in msgs:
            await store.append(m)
        assert await store.replace_snapshot(msgs[:4], [Message.user("SUM")], note=_note("SUM"))
        fork = await store.fork()
        await fork.append(Message.user("fork only"))
        assert (await fork.undo()).undoes == 1
        assert _texts(await fork.get_history()) == [*_texts(msgs), "fork only"]
        assert _texts(await store.get_history()) == ["SUM", "m4", "m5"]
        assert (await store.undo()).undoes == 1
        assert _texts(await store.get_history()) == _texts(msgs)
        await fork.clear()


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_undo_cancelled_before_its_commit_changes_nothing(kind: str, tmp_path: Path) -> None:
    """Passes: undo cancelled at its compare-and-swap leaves the store unchanged and a
    later undo still works."""
    async with open_store(kind, tmp_path, require_service) as store:
        msgs = _turns(6)
        for m in msgs:
            await store.append(m)
        assert await store.replace_snapshot(msgs[:4], [Message.user("SUM")], note=_note("SUM"))

        async def cancelled() -> None:
            raise asyncio.CancelledError

        _race_before_cas(store, cancelled)
        with pytest.raises(asyncio.CancelledError):
            await store.undo()
        assert _texts(await store.get_history()) == ["SUM", "m4", "m5"]
        assert [e.kind for e in await store.journal()] == ["compaction"]
        await store.undo()
        assert _texts(await store.get_history()) == _texts(msgs)


@pytest.mark.parametrize("kind", STORE_KINDS)
async def test_two_racing_undos_of_a_summary_conflict(kind: str, tmp_path: Path) -> None:
    """Passes: when the undone compaction wrote a summary, the loser of two racing undos
    raises (NothingToUndoError: it re-reads and finds #1 undone) and the history is
    restored once."""
    async with two_stores(kind, tmp_path, require_service) as (a, b):
        msgs = _turns(6)
        for m in msgs:
            await a.append(m)
        assert await a.replace_snapshot(msgs[:4], [Message.user("SUM")], note=_note("SUM"))

        async def first_undo() -> None:
            await a.undo()

        _race_before_cas(b, first_undo)
        with pytest.raises((HistoryConflictError, NothingToUndoError)):
            await b.undo()
        assert _texts(await a.get_history()) == _texts(msgs)
        assert [e.undoes for e in await a.journal() if e.kind == "undo"] == [1]


# -- 10. AutoCompactStore: undo while a compaction is in flight ------------------------


async def test_auto_undo_while_a_compaction_waits_on_its_summarizer() -> None:
    """Passes: undo of compaction #1 while compaction #2 waits on the summarizer. #2 was
    planned on the summarized history, so its commit must not land on the restored
    one: the history ends as the original plus what was appended, with no summary
    live, and the journal says what happened."""
    from contextfold import ModelInfo
    from contextfold.compaction import AutoCompactStore, CompactionSettings
    from contextfold.stores.memory import MemoryContextStore
    from contextfold.testing import FunctionTransport, StubTransport, make_text_response

    window = ModelInfo("small-model", 4_000, 500)
    summary = "## User requests and intent\nThe user asked.\n## Current state\nDone."
    release = asyncio.Event()
    calls = 0

    async def summarize(request: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls > 1:
            await release.wait()
        return make_text_response(summary)

    original = [
        Message.user(f"q{i} " + "u" * 80) if i % 2 == 0 else Message.assistant(f"a{i} " + "a" * 80)
        for i in range(12)
    ]
    inner = MemoryContextStore(original)
    wrapped = AutoCompactStore(
        inner,
        StubTransport(model=window),
        summary_transport=FunctionTransport(summarize, model=window),
        settings=CompactionSettings(keep_recent=2, prepare_threshold=None),
    )
    await wrapped.add_context_tokens(3_500, 10)
    assert wrapped.compactions == 1
    later = [
        Message.user(f"q{i} " + "u" * 80) if i % 2 == 0 else Message.assistant(f"a{i} " + "a" * 80)
        for i in range(12, 24)
    ]
    for m in later:
        await wrapped.append(m)
    second = asyncio.create_task(wrapped.compact())
    for _ in range(50):
        await asyncio.sleep(0)
        if calls > 1:
            break
    assert calls == 2  # compaction #2 is waiting on the summarizer
    entry = await wrapped.undo()
    assert entry.undoes == 1
    release.set()
    await second
    history = await inner.get_history()
    kinds = [(e.kind, e.outcome) for e in await wrapped.journal()]
    if ("compaction", "compacted") in kinds[2:]:
        # #2 committed on the restored history: undoing it must give everything back
        await wrapped.undo()
        history = await inner.get_history()
    assert history == [*original, *later], kinds
    await wrapped.close()


async def _damage_journal_compaction(kind: str, store: Any, number: int) -> None:
    """Make the session's first journal line name compaction ``number``."""
    if kind == "memory":
        created, _, note = store._journal[0]
        store._journal[0] = (created, number, note)
    elif kind == "redis":
        r = store._redis
        raw = r.text((await r.call("LRANGE", r.journal, 0, 0))[0])
        _, rest = raw.split(" ", 1)
        await r.call("LSET", r.journal, 0, f"{number} {rest}")
    else:  # postgres
        async with store._transaction(write=True) as db:
            await db.execute(
                "UPDATE contextfold_journal SET compaction = ? WHERE session_id = ?",
                (number, store.session_id),
            )


@pytest.mark.parametrize("kind", ["memory", "postgres", "redis"])
async def test_journal_line_naming_a_missing_record_on_every_store(
    kind: str, tmp_path: Path
) -> None:
    """Failed before the fix (memory, PostgreSQL, Redis; SQLite is the test above).

    Same defect as ``test_journal_line_naming_a_missing_record_is_a_typed_error``: a
    journal line naming a record that does not exist makes ``undo()`` raise
    ``RuntimeError: coroutine raised StopIteration`` instead of CorruptRecordError.
    """
    async with open_store(kind, tmp_path, require_service) as store:
        msgs = _turns(6)
        for m in msgs:
            await store.append(m)
        assert await store.replace_snapshot(msgs[:4], [Message.user("SUM")], note=_note("SUM"))
        await _damage_journal_compaction(kind, store, 99)
        before = _texts(await store.get_history())
        with pytest.raises(StoreError):
            await store.undo()
        assert _texts(await store.get_history()) == before


# -- 11. the CLI on a schema-2 database ------------------------------------------------


def _downgrade_to_2(path: Path) -> None:
    db = sqlite3.connect(path)
    try:
        db.executescript(
            "ALTER TABLE contextfold_compactions DROP COLUMN kept_before;"
            "DROP TABLE contextfold_journal;"
            "UPDATE contextfold_meta SET value = '2' WHERE key = 'schema_version';"
        )
        db.commit()
    finally:
        db.close()


def _schema_version(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        return str(
            db.execute(
                "SELECT value FROM contextfold_meta WHERE key = 'schema_version'"
            ).fetchone()[0]
        )
    finally:
        db.close()


def test_cli_show_refuses_a_schema_2_database_without_changing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Passes: ``sessions show`` on a version-2 database is a one-line pointer to
    ``sessions upgrade`` and leaves the file at version 2."""
    path = tmp_path / "old.db"
    asyncio.run(_sqlite_with_compaction(path))
    _downgrade_to_2(path)
    assert _cli(["sessions", "show", str(path), "s"]) != 0
    err = capsys.readouterr().err.strip()
    assert "sessions upgrade" in err
    assert "\n" not in err
    assert _schema_version(path) == "2"


def test_cli_undo_that_fails_on_a_schema_2_database_does_not_upgrade_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Failed before the fix (arguable; a side effect).

    ``sessions show`` refuses a version-2 database and says upgrading is a deliberate
    step ("older contextfold versions cannot open it afterwards"). ``sessions undo`` on
    the same file instead upgrades it in place silently, and then fails anyway
    ("compaction 1 was written by an older contextfold ... cannot be undone"): the
    command did nothing it was asked to but left the file unreadable to the older
    version (``sessions upgrade`` then reports "already at schema version 3"). It should
    refuse with the same pointer to ``sessions upgrade`` and leave version 2.
    """
    path = tmp_path / "old.db"
    asyncio.run(_sqlite_with_compaction(path))
    _downgrade_to_2(path)
    assert _cli(["sessions", "undo", str(path), "s"]) != 0
    assert _schema_version(path) == "2"
