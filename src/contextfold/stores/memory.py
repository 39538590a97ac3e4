"""The in-process store: :class:`MemoryContextStore`.

It keeps one session in a list, for tests, short scripts and anything that lives in a
single process; it obeys the whole :class:`~contextfold.stores.base.ContextStore`
contract and is :class:`~contextfold.stores.base.Archiving`,
:class:`~contextfold.stores.base.PrefixReplacing` and
:class:`~contextfold.stores.base.SnapshotReplacing`. Coroutines of one event loop may
share it; processes cannot.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from contextfold.messages import Message, check_message, check_messages
from contextfold.stores._journal import JournalLine, build_journal, encode_note, undo_last
from contextfold.stores.base import (
    ArchivedMessage,
    CompactionRecord,
    ContextStore,
    JournalEntry,
    SessionInfo,
    preview_of,
)
from contextfold.tokens import count_message_tokens

__all__ = ["MemoryContextStore"]


class MemoryContextStore(ContextStore):
    """A store that keeps one session in process memory.

    Like the persistent stores, its session preview is the first user text the
    session was given; a compaction that rewrites the history does not change it.
    It is :class:`~contextfold.stores.base.Archiving`: what a rewrite replaces is kept
    in memory (for the life of the store, so a long session's archive grows with every
    compaction); the ``seq`` of an archived message is its index in the history at that
    rewrite (and ``synthetic`` is not tracked: always ``False``). It is
    :class:`~contextfold.stores.base.Journaling` too, for the life of the object.
    """

    def __init__(self, history: Iterable[Message] | None = None) -> None:
        self._messages: list[Message] = [m.copy() for m in history or ()]
        self._archive: list[ArchivedMessage] = []
        self._records: list[CompactionRecord] = []
        self._journal: list[JournalLine] = []
        self._input_tokens = 0
        self._output_tokens = 0
        self._created_at = datetime.now(UTC).isoformat()
        self._preview = preview_of(self._messages)

    def _note_preview(self, messages: Iterable[Message]) -> None:
        if not self._preview:
            self._preview = preview_of(messages)

    async def append(self, message: Message) -> None:
        check_message(message)
        self._messages.append(message.copy())
        if not self._preview and message.role == "user":
            self._note_preview([message])

    async def get_history(self) -> list[Message]:
        return [m.copy() for m in self._messages]

    async def clear(self) -> None:
        self._messages = []
        self._archive = []
        self._records = []
        self._journal = []
        self._preview = ""

    def _archive_replaced(
        self, count: int, messages: Sequence[Message], note: JournalEntry | None = None
    ) -> None:
        """Archive what replacing the first ``count`` messages with ``messages`` removes:
        the span between the messages it starts and ends with unchanged; record the
        rewrite, and journal it with ``note``."""
        old = self._messages[:count]
        width = min(len(old), len(messages))
        front = 0
        while front < width and old[front] == messages[front]:
            front += 1
        back = 0
        while (
            back < width - front and old[len(old) - 1 - back] == messages[len(messages) - 1 - back]
        ):
            back += 1
        removed = range(front, len(old) - back)
        written = messages[front : len(messages) - back]
        number: int | None = None
        # A rewrite that moves live messages (not a plain append after them all) is
        # recorded even when it archives nothing, and so is every journaled one: undo
        # relies on "no record since N" meaning "nothing moved since N".
        moved = bool(written) and front < len(self._messages)
        if removed or moved or note is not None:
            number = len(self._records) + 1
            before = sum(count_message_tokens(m) for m in self._messages)
            gone = sum(count_message_tokens(old[i]) for i in removed)
            self._records.append(
                CompactionRecord(
                    self.session_id,
                    number,
                    _now(),
                    len(self._messages),
                    len(self._messages) - len(removed) + len(written),
                    before,
                    before - gone + sum(count_message_tokens(m) for m in written),
                    len(removed),
                    kept_before=front,
                )
            )
            self._archive.extend(ArchivedMessage(i, number, False, old[i].copy()) for i in removed)
        if note is not None:
            self._journal.append((_now(), number, encode_note(note)))

    async def get_archive(self) -> list[ArchivedMessage]:
        """Every message a rewrite removed, oldest rewrite first (see
        :class:`~contextfold.stores.base.Archiving`)."""
        return [
            ArchivedMessage(a.seq, a.compaction, a.synthetic, a.message.copy())
            for a in self._archive
        ]

    async def replace_history(self, messages: Sequence[Message]) -> None:
        check_messages(messages)
        self._archive_replaced(len(self._messages), messages)
        self._messages = [m.copy() for m in messages]
        self._note_preview(messages)

    async def replace_prefix(self, count: int, messages: Sequence[Message]) -> None:
        """Replace the first ``count`` messages with ``messages``, keeping the rest."""
        check_messages(messages)
        if not 0 <= count <= len(self._messages):
            raise ValueError(
                f"cannot replace {count} messages of a {len(self._messages)}-message history"
            )
        self._archive_replaced(count, messages)
        self._messages[:count] = [m.copy() for m in messages]
        self._note_preview(messages)

    async def replace_snapshot(
        self,
        snapshot: Sequence[Message],
        messages: Sequence[Message],
        *,
        note: JournalEntry | None = None,
        last_compaction: int | None = None,
    ) -> bool:
        """Put ``messages`` in place of ``snapshot`` if the history still starts with it.

        See :class:`~contextfold.stores.base.SnapshotReplacing`; returns ``False`` and
        changes nothing otherwise, or when ``last_compaction`` is given and is not the
        number of the session's last record. ``note`` is journaled with the rewrite.
        """
        check_messages(messages)
        if self._messages[: len(snapshot)] != list(snapshot):
            return False
        last = self._records[-1].number if self._records else 0
        if last_compaction is not None and last != last_compaction:
            return False
        self._archive_replaced(len(snapshot), messages, note)
        self._messages[: len(snapshot)] = [m.copy() for m in messages]
        self._note_preview(messages)
        return True

    async def fork(self) -> MemoryContextStore:
        forked = MemoryContextStore(copy.deepcopy(self._messages))
        forked._input_tokens, forked._output_tokens = self._input_tokens, self._output_tokens
        forked._preview = self._preview
        forked._archive = [
            ArchivedMessage(a.seq, a.compaction, a.synthetic, a.message.copy())
            for a in self._archive
        ]
        forked._records = list(self._records)
        forked._journal = list(self._journal)
        return forked

    async def get_compactions(self) -> list[CompactionRecord]:
        """The session's rewrite records, oldest first."""
        return list(self._records)

    async def journal(self) -> list[JournalEntry]:
        """The compaction journal (see :class:`~contextfold.stores.base.Journaling`)."""
        return build_journal(self.session_id, self._records, self._journal)

    async def write_journal(self, note: JournalEntry) -> None:
        """Add a journal line for an attempt that changed nothing."""
        self._journal.append((_now(), None, encode_note(note)))

    async def undo(self, *, number: int | None = None) -> JournalEntry:
        """Put back the history before the last compaction (see
        :class:`~contextfold.stores.base.Journaling`)."""
        return await undo_last(self, number=number)

    async def list_sessions(self) -> list[SessionInfo]:
        return [
            SessionInfo(
                session_id=self.session_id,
                message_count=len(self._messages),
                preview=self._preview,
                created_at=self._created_at,
                input_tokens=self._input_tokens,
                output_tokens=self._output_tokens,
            )
        ]

    async def set_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        self._input_tokens, self._output_tokens = input_tokens, output_tokens

    async def get_context_tokens(self) -> tuple[int, int]:
        return (self._input_tokens, self._output_tokens)

    async def add_context_tokens(self, input_tokens: int, output_tokens: int) -> None:
        self._input_tokens += input_tokens
        self._output_tokens += output_tokens

    def __len__(self) -> int:
        return len(self._messages)


def _now() -> str:
    return datetime.now(UTC).isoformat()
