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
from contextfold.stores._rows import json_text
from contextfold.stores.base import (
    ArchivedMessage,
    CompactionRecord,
    JournalEntry,
    Journaling,
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
    """The JSON a store keeps for ``note``: its own fields, not the record's (escaped
    where a database could not store the text raw, as message content is)."""
    return json_text({name: getattr(note, name) for name in _NOTE_FIELDS})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_CHECKS: Final[dict[str, Any]] = {
    "kind": lambda v: v in ("compaction", "undo", "attempt"),
    "undoes": lambda v: v is None or _is_int(v),
    "real_tokens_before": lambda v: v is None or _is_int(v),
    "summarized_messages": _is_int,
    "summarizer_input_tokens": _is_int,
    "summarizer_output_tokens": _is_int,
    "summarizer_requests": _is_int,
    "duration_s": lambda v: v is None or (isinstance(v, int | float) and not isinstance(v, bool)),
    "waited_s": lambda v: v is None or (isinstance(v, int | float) and not isinstance(v, bool)),
    "facts": lambda v: (
        v is None
        or (isinstance(v, dict) and all(isinstance(k, str) and _is_int(x) for k, x in v.items()))
    ),
}
"""What each stored note field may hold; the text fields hold a string or ``None``."""


def decode_note(session_id: str, text: Any) -> dict[str, Any]:
    """A stored note's fields; :class:`CorruptRecordError` when it is not one."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or "kind" not in data:
            raise ValueError("not a journal note")
        note = {name: data[name] for name in _NOTE_FIELDS if name in data}
        for name, value in note.items():
            check = _CHECKS.get(name, lambda v: v is None or isinstance(v, str))
            if not check(value):
                raise ValueError(f"its {name} is {value!r}")
        return note
    except (ValueError, TypeError, RecursionError) as exc:
        raise CorruptRecordError(
            f"session {session_id!r}: a stored journal line cannot be decoded ({exc}); it "
            "was written by something other than contextfold or was damaged"
        ) from exc


def build_journal(
    session_id: str, records: Sequence[CompactionRecord], lines: Sequence[JournalLine]
) -> list[JournalEntry]:
    """The journal: ``lines`` (in the order they were written) joined with the
    ``records`` they name, and a bare entry for each record no line names, placed by
    its number before the first line of a later record; numbered from 1.

    The order is the stores' commit order, not the lines' clocks: processes whose
    clocks disagree still list compaction 1 before compaction 2.
    """
    by_number = {r.number: r for r in records}
    named = {compaction for _, compaction, _ in lines if compaction is not None}
    bare = sorted(n for n in by_number if n not in named)
    entries: list[JournalEntry] = []

    def flush(below: int | None) -> None:
        while bare and (below is None or bare[0] < below):
            record = by_number[bare.pop(0)]
            entry = JournalEntry(0, record.created_at, "compaction", compaction=record.number)
            entries.append(_with_record(entry, record))

    for created_at, compaction, text in lines:
        note = decode_note(session_id, text)
        if compaction is not None:
            flush(compaction)
        entry = JournalEntry(number=0, created_at=created_at, compaction=compaction, **note)
        entries.append(_with_record(entry, by_number.get(compaction) if compaction else None))
    flush(None)
    return [replace(entry, number=i) for i, entry in enumerate(entries, 1)]


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


class _Undoable(Journaling, Protocol):
    """What :func:`undo_last` needs of a store besides its journal (every shipped store
    has it)."""

    @property
    def session_id(self) -> str: ...

    async def get_history(self) -> list[Message]: ...

    async def get_compactions(self) -> list[CompactionRecord]: ...

    async def get_archive(self) -> list[ArchivedMessage]: ...


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
        # Every record is in the journal (bare or described), read in one go: its
        # highest number is the guard of the commit below, so nothing written since
        # this read (a rewrite, another undo) can be undone over.
        journal = await store.journal()
        seen = max((e.compaction for e in journal if e.compaction is not None), default=0)
        found = last_undoable(journal)
        last = None if found is None else found.compaction
        if last is None:
            raise NothingToUndoError(
                f"session {sid!r} has no compaction to undo"
                + (" (every one is undone already)" if seen else "")
            )
        if target is None:
            target = last
        elif last != target:
            raise HistoryConflictError(
                f"session {sid!r}: the last compaction is number {last}, not {target}; "
                "nothing was undone"
            )
        record = next((r for r in await store.get_compactions() if r.number == last), None)
        if record is None:
            raise CorruptRecordError(
                f"session {sid!r}: the journal names compaction {last}, which has no "
                "record; it was damaged or written by something other than contextfold "
                "(nothing was undone)"
            )
        if record.kept_before is None:
            raise NothingToUndoError(
                f"session {sid!r}: compaction {last} was written by an older contextfold, "
                "which did not record where its summary went; it cannot be undone"
            )
        originals = [a.message for a in await store.get_archive() if a.compaction == last]
        history = await store.get_history()
        front, written = record.kept_before, record.inserted
        if (
            front < 0
            or written < 0
            or len(originals) != record.archived
            or len(history) < front + written
        ):
            raise CorruptRecordError(
                f"session {sid!r}: compaction {last} archived {record.archived} messages "
                f"and wrote {written} after {front}, but the archive holds "
                f"{len(originals)} and the history {len(history)}; the record was damaged "
                "(nothing was undone)"
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
        restored = [*history[:front], *originals]
        if await store.replace_snapshot(snapshot, restored, note=note, last_compaction=seen):
            for entry in reversed(await store.journal()):
                if entry.kind == "undo" and entry.undoes == last:
                    return entry
            return note  # pragma: no cover - the line was written with the rewrite
        # Another rewrite or undo committed since the read: decide again.
    raise HistoryConflictError(
        f"session {sid!r}: gave up undoing after {_ATTEMPTS} attempts; other clients kept "
        "rewriting the history"
    )
