"""Committing a compaction: put the compacted messages in place of the snapshot.

The store may have changed since the snapshot was read: messages appended meanwhile
(by this process or another) must survive, and a history rewritten by someone else
must not be overwritten.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Sequence

from contextfold.context import ContextStore, PrefixReplacing
from contextfold.errors import HistoryConflictError
from contextfold.messages import Message

logger = logging.getLogger("contextfold.compaction")


def common_suffix(old: Sequence[Message], new: Sequence[Message]) -> int:
    """How many trailing messages ``old`` and ``new`` share (at most ``len(new) - 1``)."""
    n = 0
    limit = min(len(old), len(new) - 1)
    while n < limit and old[-1 - n] == new[-1 - n]:
        n += 1
    return n


async def splice(
    store: ContextStore, snapshot: Sequence[Message], new_messages: Sequence[Message]
) -> list[Message] | None:
    """Replace ``snapshot`` (a prefix of the store's history) with ``new_messages``.

    Returns the messages appended after the snapshot, which stay after the new ones,
    or ``None`` (and changes nothing) when the history no longer starts with
    ``snapshot``. Stores implementing :class:`~contextfold.context.PrefixReplacing`
    rewrite only the summarized rows, atomically, and only if they still hold what
    the snapshot read (``None`` otherwise); for others the whole history goes
    through ``replace_history`` and, if that fails part-way, the old history is put
    back before the error propagates.
    """
    current = await store.get_history()
    if current[: len(snapshot)] != list(snapshot):
        return None
    appended = current[len(snapshot) :]
    if isinstance(store, PrefixReplacing):
        # The kept tail (when verbatim) and later appends, even from other processes,
        # stay where they are.
        kept = common_suffix(snapshot, new_messages)
        count = len(snapshot) - kept
        replacement = new_messages[: len(new_messages) - kept]
        if not _compares(store):  # a store written before replace_prefix took ``expected``
            await store.replace_prefix(count, replacement)
            return appended
        try:
            # A compare-and-swap: another process may rewrite the history between the
            # read above and this write (its compaction lease expired, say).
            await store.replace_prefix(count, replacement, expected=snapshot[:count])
        except HistoryConflictError:
            return None
        return appended
    try:
        await store.replace_history([*new_messages, *appended])
    except BaseException:  # a cancellation half-way too: put the old history back
        await _restore(store, current)
        raise
    return appended


def _compares(store: PrefixReplacing) -> bool:
    """Whether ``store.replace_prefix`` takes the ``expected`` keyword (compare-and-swap)."""
    try:
        parameters = inspect.signature(store.replace_prefix).parameters
    except (TypeError, ValueError):
        return False
    return "expected" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


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
