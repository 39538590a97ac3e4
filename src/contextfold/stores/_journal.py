"""The compaction journal every shipped store keeps, and undo, written once for all four.

A store keeps journal *lines*: ``(created_at, compaction number or None, note)``,
where the note is the JSON of a :class:`~contextfold.stores.base.JournalEntry`'s own
fields (what the compactor saw). The counts and token estimates of a rewrite are in
its :class:`~contextfold.stores.base.CompactionRecord`, written in the same
transaction; :func:`build_journal` joins the two, and lists a record no line names
(a rewrite made by a direct ``replace_history`` or by an older contextfold) as a bare
``compaction`` entry, so no rewrite is ever missing from the journal.

:func:`undo_last` is undo on any store with a journal, an archive and
``replace_snapshot``: it finds the last rewrite not undone, reads what the rewrite
archived, and commits ``kept head + archived originals`` in place of ``kept head +
what the rewrite wrote`` with the store's own compare-and-swap, so appends that land
meanwhile stay, and a rewrite that lands meanwhile makes it fail rather than undo the
wrong one. The undo is itself a rewrite (what it takes out is archived) with an
``undo`` journal line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any, Final, Protocol

from contextfold.errors import CorruptRecordError, HistoryConflictError, NothingToUndoError
from contextfold.messages import Message
from contextfold.stores.base import (
    ArchivedMessage,
    CompactionRecord,
    JournalEntry,
    journals_commits,
    last_undoable,
)

__all__ = ["JournalLine", "build_journal", "decode_note", "encode_note", "undo_last"]

JournalLine = tuple[str, int | None, str]
"""A stored journal line: ``(created_at, compaction number or None, note JSON)``."""

_RECORD_FIELDS: Final = frozenset(
    {"number", "created_at", "compaction", "messages_before", "messages_after"}
    | {"tokens_before", "tokens_after"}
)
_NOTE_FIELDS: Final = tuple(f.name for f in fields(JournalEntry) if f.name not in _RECORD_FIELDS)
_ATTEMPTS: Final = 5


def encode_note(note: JournalEntry) -> str:
    """The JSON a store keeps for ``note``: its own fields, not the record's."""
    data = {name: getattr(note, name) for name in _NOTE_FIELDS}
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def decode_note(session_id: str, text: Any) -> dict[str, Any]:
    """A stored note's fields; :class:`CorruptRecordError` when it is not one."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("kind") not in ("compaction", "undo", "attempt"):
            raise ValueError("not a journal note")
        return {name: data[name] for name in _NOTE_FIELDS if name in data}
    except (ValueError, TypeError, RecursionError) as exc:
        raise CorruptRecordError(
            f"session {session_id!r}: a stored journal line cannot be decoded ({exc}); it "
            "was written by something other than contextfold or was damaged"
        ) from exc


def build_journal(
    session_id: str, records: Sequence[CompactionRecord], lines: Sequence[JournalLine]
) -> list[JournalEntry]:
    """The journal: ``lines`` joined with the ``records`` they name, plus a bare entry
    for each record no line names, oldest first, numbered from 1."""
    by_number = {r.number: r for r in records}
    named: set[int] = set()
    dated: list[tuple[str, int, JournalEntry]] = []
    for order, (created_at, compaction, text) in enumerate(lines):
        note = decode_note(session_id, text)
        record = by_number.get(compaction) if compaction is not None else None
        if compaction is not None:
            named.add(compaction)
        entry = JournalEntry(number=0, created_at=created_at, compaction=compaction, **note)
        dated.append((created_at, order, _with_record(entry, record)))
    for record in records:
        if record.number not in named:
            bare = JournalEntry(0, record.created_at, "compaction", compaction=record.number)
            dated.append((record.created_at, -1, _with_record(bare, record)))
    dated.sort(key=lambda item: (item[0], item[1]))
    return [replace(entry, number=i) for i, (_, _, entry) in enumerate(dated, 1)]


def _with_record(entry: JournalEntry, record: CompactionRecord | None) -> JournalEntry:
    if record is None:
        return entry
    return replace(
        entry,
        messages_before=record.messages_before,
        messages_after=record.messages_after,
        tokens_before=record.tokens_before,
        tokens_after=record.tokens_after,
    )


class _Undoable(Protocol):
    """What :func:`undo_last` needs of a store (every shipped store has it)."""

    @property
    def session_id(self) -> str: ...

    async def get_history(self) -> list[Message]: ...

    async def get_compactions(self) -> list[CompactionRecord]: ...

    async def get_archive(self) -> list[ArchivedMessage]: ...

    async def journal(self) -> list[JournalEntry]: ...

    async def replace_snapshot(
        self,
        snapshot: Sequence[Message],
        messages: Sequence[Message],
        *,
        note: JournalEntry | None = None,
    ) -> bool: ...


async def undo_last(store: _Undoable, *, number: int | None = None) -> JournalEntry:
    """Put back the history as it was before the last rewrite not yet undone.

    ``number`` pins the rewrite (a :attr:`CompactionRecord.number`, as the journal's
    ``compaction`` shows it): when the last one is another,
    :class:`~contextfold.errors.HistoryConflictError` is raised and nothing changes.
    Returns the ``undo`` journal entry written. Raises
    :class:`~contextfold.errors.NothingToUndoError` when nothing is left to undo or the
    rewrite cannot be undone (a record from before contextfold kept its place).
    """
    sid = store.session_id
    checked: object = store  # checked without narrowing ``store`` to Journaling
    if not journals_commits(checked):
        raise TypeError(
            f"{type(store).__name__}.replace_snapshot does not take note=, so an undo "
            "could not be journaled with its commit; accept note= and pass it on"
        )
    target = number
    for _ in range(_ATTEMPTS):
        records = await store.get_compactions()
        found = last_undoable(await store.journal())
        last = None if found is None else found.compaction
        if last is None:
            raise NothingToUndoError(
                f"session {sid!r} has no compaction to undo"
                + (" (every one is undone already)" if records else "")
            )
        if target is None:
            target = last
        elif last != target:
            raise HistoryConflictError(
                f"session {sid!r}: the last compaction is number {last}, not {target}; "
                "nothing was undone"
            )
        record = next(r for r in records if r.number == last)
        if record.kept_before is None:
            raise NothingToUndoError(
                f"session {sid!r}: compaction {last} was written by an older contextfold, "
                "which did not record where its summary went; it cannot be undone"
            )
        originals = [a.message for a in await store.get_archive() if a.compaction == last]
        history = await store.get_history()
        if [r.number for r in await store.get_compactions()] != [r.number for r in records]:
            continue  # a rewrite committed while we read: read again
        front, written = record.kept_before, record.inserted
        if len(originals) != record.archived or len(history) < front + written:
            raise CorruptRecordError(
                f"session {sid!r}: compaction {last} archived {record.archived} messages "
                f"and wrote {written} after {front}, but the archive holds "
                f"{len(originals)} and the history {len(history)}; nothing was undone"
            )
        note = JournalEntry(
            0,
            "",
            "undo",
            outcome="undone",
            trigger="manual",
            undoes=last,
            summarized_messages=written,
        )
        snapshot = history[: front + written]
        if await store.replace_snapshot(snapshot, [*history[:front], *originals], note=note):
            for entry in reversed(await store.journal()):
                if entry.kind == "undo" and entry.undoes == last:
                    return entry
            return note  # pragma: no cover - the line was written with the rewrite
        # The history's head changed under us (another rewrite): decide again.
    raise HistoryConflictError(
        f"session {sid!r}: gave up undoing after {_ATTEMPTS} attempts; other clients kept "
        "rewriting the history"
    )
