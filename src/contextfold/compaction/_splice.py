"""Committing a compaction: put the compacted messages in place of the snapshot.

The store may have changed since the snapshot was read: messages appended meanwhile
(by this process or another) must survive, and a history rewritten by someone else
must not be overwritten.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from contextfold.context import ContextStore, PrefixReplacing, SnapshotReplacing
from contextfold.messages import Message
from contextfold.stores.base import JournalEntry, journals_commits

logger = logging.getLogger("contextfold.compaction")


def common_suffix(old: Sequence[Message], new: Sequence[Message]) -> int:
    """How many trailing messages ``old`` and ``new`` share (at most ``len(new) - 1``)."""
    n = 0
    limit = min(len(old), len(new) - 1)
    while n < limit and old[-1 - n] == new[-1 - n]:
        n += 1
    return n


async def splice(
    store: ContextStore,
    snapshot: Sequence[Message],
    new_messages: Sequence[Message],
    note: JournalEntry | None = None,
) -> list[Message] | None:
    """Replace ``snapshot`` (a prefix of the store's history) with ``new_messages``.

    Returns the messages appended after the snapshot, which stay after the new ones,
    or ``None`` (and changes nothing) when the history no longer starts with
    ``snapshot``. Stores implementing :class:`~contextfold.context.SnapshotReplacing`
    commit with a compare-and-swap (``None`` when it finds the history changed);
    :class:`~contextfold.context.PrefixReplacing` ones rewrite only the summarized
    rows, atomically; for others the whole history goes through ``replace_history``
    and, if that fails part-way, the old history is put back before the error
    propagates. A :class:`~contextfold.stores.base.Journaling` store journals ``note``
    with the commit, in the same transaction.
    """
    current = await store.get_history()
    if current[: len(snapshot)] != list(snapshot):
        return None
    appended = current[len(snapshot) :]
    if isinstance(store, SnapshotReplacing):
        # Another connection or process may commit between the read above and the write.
        if note is not None and journals_commits(store):
            done = await store.replace_snapshot(snapshot, new_messages, note=note)
        else:
            done = await store.replace_snapshot(snapshot, new_messages)
        return appended if done else None
    if isinstance(store, PrefixReplacing):
        # The kept tail (when verbatim) and later appends, even from other processes,
        # stay where they are.
        kept = common_suffix(snapshot, new_messages)
        count = len(snapshot) - kept
        replacement = new_messages[: len(new_messages) - kept]
        await store.replace_prefix(count, replacement)
        return appended
    try:
        await store.replace_history([*new_messages, *appended])
    except BaseException:  # a cancellation half-way too: put the old history back
        await _restore(store, current)
        raise
    return appended


async def _restore(store: ContextStore, history: list[Message]) -> None:
    """Put ``history`` back after a non-atomic ``replace_history`` failed part-way."""
    try:
        await store.replace_history(history)
    except Exception:
        logger.exception(
            "could not restore session %s after a failed rewrite; its history may be "
            "incomplete (%d messages expected)",
            store.session_id,
            len(history),
        )
